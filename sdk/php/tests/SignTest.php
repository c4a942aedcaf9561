<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Exception\InvalidArgumentException;
use Paygate\Signer;
use Paygate\Tests\lib\TestCase;

/**
 * The MD5 signature against the gateway's own vectors (every one of
 * GATEWAY_SDK_SIGN_VECTORS; the repository's copy when it is unset), so the
 * SDK signs what the gateway verifies.
 */
final class SignTest extends TestCase
{
    public static function vectors(): array
    {
        $path = self::env('GATEWAY_SDK_SIGN_VECTORS') ?? dirname(__DIR__, 3) . '/schema/testdata/sign-vectors.json';
        if (!is_file($path)) {
            return [];
        }
        return json_decode((string) file_get_contents($path), true, 512, JSON_THROW_ON_ERROR)['vectors'];
    }

    public function testEveryVector(): void
    {
        $vectors = self::vectors();
        if ($vectors === []) {
            $this->skip('no sign vectors: set GATEWAY_SDK_SIGN_VECTORS');
        }
        foreach ($vectors as $v) {
            $this->assertSame($v['base'], Signer::base($v['params']), $v['name'] . ': base');
            $this->assertSame($v['sign'], Signer::sign($v['params'], $v['key']), $v['name'] . ': sign');
            $this->assertTrue(Signer::verify($v['params'], $v['key'], $v['sign']), $v['name'] . ': verify');
            $this->assertTrue(Signer::verify($v['params'], $v['key'], strtoupper($v['sign'])), $v['name'] . ': verify upper case');
            $wrong = $v['params'];
            $wrong['sign'] = 'ignored';
            $wrong['sign_type'] = 'ignored';
            $this->assertSame($v['sign'], Signer::sign($wrong, $v['key']), $v['name'] . ': sign and sign_type are not signed');
        }
        echo '     ' . count($vectors) . " vectors\n";
    }

    public function testRefusesWhatCannotBeSignedAsSent(): void
    {
        $cases = [
            'float amount' => ['amount' => 100.5],
            'nested value' => ['x' => ['a' => 1]],
            'object value' => ['x' => new \stdClass()],
        ];
        foreach ($cases as $name => $params) {
            $this->assertThrows(InvalidArgumentException::class, fn () => Signer::sign($params, 'k'), $name);
        }
    }

    public function testLiteralsAndOrder(): void
    {
        $cases = [
            'integer as written' => [['amount' => 100, 'a' => 'x'], 'a=x&amount=100'],
            'byte order, upper case first' => [['clientip' => '1', 'clientOrderId' => '2'], 'clientOrderId=2&clientip=1'],
            'numeric names sort as strings' => [['10' => 'a', '9' => 'b', 'a' => ''], '10=a&9=b&a='],
            'null left out, empty kept' => [['a' => null, 'b' => ''], 'b='],
        ];
        foreach ($cases as $name => [$params, $base]) {
            $this->assertSame($base, Signer::base($params), $name);
        }
    }
}
