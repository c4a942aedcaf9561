<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Tests\lib\TestCase;

/**
 * README.md's PHP is PHP: every block parses, and the ten-line create runs
 * as written against the gateway (its autoload line pointed at this
 * checkout, the placeholder clientIp at the loopback the gateway sees).
 */
final class ReadmeTest extends TestCase
{
    /** @return list<string> the README's php blocks */
    private static function blocks(): array
    {
        preg_match_all('/```php\n(.*?)```/s', (string) file_get_contents(dirname(__DIR__) . '/README.md'), $m);
        return $m[1];
    }

    private static function php(string $code, array $env = []): array
    {
        $file = tempnam(sys_get_temp_dir(), 'paygate-readme-');
        file_put_contents($file, str_starts_with($code, '<?php') ? $code : "<?php\n" . $code);
        try {
            $proc = proc_open([PHP_BINARY, ...$env === [] ? ['-l'] : [], $file], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env === [] ? null : $env + getenv());
            $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            return [proc_close($proc), $out];
        } finally {
            unlink($file);
        }
    }

    public function testEveryBlockParses(): void
    {
        $blocks = self::blocks();
        $this->assertTrue(count($blocks) >= 5, 'the README has its php blocks');
        foreach ($blocks as $i => $code) {
            [$rc, $out] = self::php($code);
            $this->assertSame(0, $rc, "block $i: $out");
        }
    }

    public function testTenLineCreateRunsAsWritten(): void
    {
        $base = self::env('GATEWAY_SDK_BASE_URL') ?? $this->skip('GATEWAY_SDK_BASE_URL is not set: no gateway to test against');
        $code = self::blocks()[0];
        $this->assertTrue(substr_count(trim($code), "\n") + 1 <= 10, "the create is ten lines:\n$code");
        $code = str_replace(["__DIR__ . '/vendor/autoload.php'", "'203.0.113.7'"], [var_export(dirname(__DIR__) . '/autoload.php', true), "'127.0.0.1'"], $code);
        $code .= "\necho \$order->paymentId;\n";
        [$rc, $out] = self::php($code, ['PAYGATE_BASE_URL' => $base, 'PAYGATE_APPID' => self::env('GATEWAY_SDK_APPID'),
            'PAYGATE_API_KEY' => self::env('GATEWAY_SDK_API_KEY'), 'PAYGATE_QUERY_KEY' => self::env('GATEWAY_SDK_QUERY_KEY')]);
        $this->assertSame(0, $rc, "the quick start: $out");
        $c = new Client(new Config($base, (string) self::env('GATEWAY_SDK_APPID'), '', (string) self::env('GATEWAY_SDK_QUERY_KEY')));
        $o = $c->order(trim($out));
        $this->assertSame(['100.50', 'A-77'], [$o->amount, $o->clientOrderId], 'the quick start\'s order');
    }
}
