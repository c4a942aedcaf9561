<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Exception\ApiException;
use Paygate\Exception\AuthenticationException;
use Paygate\Exception\ConflictException;
use Paygate\Exception\InvalidArgumentException;
use Paygate\Exception\InvalidRequestException;
use Paygate\Exception\NotFoundException;
use Paygate\Exception\RateLimitException;
use Paygate\Exception\ServerException;
use Paygate\Exception\TransportException;
use Paygate\Exception\UnexpectedResponseException;
use Paygate\Http\Response;
use Paygate\Signer;
use Paygate\Tests\lib\FakeTransport;
use Paygate\Tests\lib\TestCase;

/** The client against a scripted transport: what it sends, its retries, its errors. */
final class ClientTest extends TestCase
{
    public const KEY = 'k3y_5ecret';

    public static function created(): array
    {
        return ['paymentId' => 'P1', 'orderId' => 'P1', 'redirectUrl' => 'https://pay.example/payment/P1', 'qrImageUrl' => null,
            'status' => 1, 'statusString' => 'ready', 'paidWithBalance' => false, 'idempotent' => false, 'amount' => '100.50',
            'currency' => 'CNY', 'paymentMethod' => 'wallet_a', 'clientOrderId' => 'A-1', 'createdAt' => '2026-01-02T03:04:05Z'];
    }

    /** @return array{0: Client, 1: FakeTransport, 2: \ArrayObject} */
    private function client(array $script, int $maxRetries = 2): array
    {
        $t = new FakeTransport($script);
        $slept = new \ArrayObject();
        $config = new Config('https://pay.example/', '1001', self::KEY, 'qk-uuid', '203.0.113.7', maxRetries: $maxRetries);
        return [new Client($config, $t, static function (float $s) use ($slept): void {
            $slept[] = $s;
        }), $t, $slept];
    }

    public function testCreateSignsWhatItSends(): void
    {
        [$c, $t] = $this->client([FakeTransport::ok(self::created())]);
        $o = $c->create(['amount' => '100.50', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a', 'clientOrderId' => 'A-1',
            'description' => '订单 café', 'fiatpspSystemId' => 12, 'customerName' => null, 'appid' => 'other', 'action' => 'x']);
        $this->assertSame('P1', $o->paymentId);
        $this->assertSame('https://pay.example/payment/P1', $o->payerUrl('https://pay.example'));
        $r = $t->requests[0];
        $this->assertSame('POST', $r->method);
        $this->assertSame('https://pay.example/api/createorder', $r->url);
        $this->assertSame('application/json', $r->headers['Content-Type']);
        $this->assertTrue(str_starts_with($r->headers['User-Agent'], 'paygate-php/' . Client::VERSION), 'User-Agent ' . $r->headers['User-Agent']);
        $this->assertTrue(preg_match('/^[0-9a-f]{32}$/', $r->headers['Idempotency-Key']) === 1, 'an Idempotency-Key is made');
        $body = json_decode((string) $r->body, true);
        $this->assertSame(['action' => 'createorder', 'amount' => '100.50', 'appid' => '1001', 'clientOrderId' => 'A-1', 'clientip' => '203.0.113.7',
            'currency' => 'CNY', 'description' => '订单 café', 'fiatpspSystemId' => '12', 'paymentMethod' => 'wallet_a'], array_diff_key($body, ['sign' => 1]));
        $this->assertTrue(Signer::verify($body, self::KEY, $body['sign']), 'the body verifies with the API key');
        $this->assertTrue(str_contains((string) $r->body, '订单'), 'UTF-8 is sent as is');
    }

    public function testHostedUrl(): void
    {
        [$c] = $this->client([]);
        $url = $c->hostedUrl(['amount' => 5, 'currency' => 'USD', 'paymentMethod' => 'select', 'return_url' => 'https://shop.example/done?id={paymentId}&x=1']);
        $this->assertTrue(str_starts_with($url, 'https://pay.example/api/createorder?'), $url);
        parse_str((string) parse_url($url, PHP_URL_QUERY), $q);
        $this->assertSame('https://shop.example/done?id={paymentId}&x=1', $q['return_url']);
        $this->assertSame('5', $q['amount']);
        $this->assertTrue(Signer::verify($q, self::KEY, $q['sign']), 'the query verifies with the API key');
    }

    public function testRetriesKeepTheIdempotencyKey(): void
    {
        [$c, $t, $slept] = $this->client([
            new TransportException('connection reset'),
            FakeTransport::error(503, 'unavailable'),
            FakeTransport::ok(self::created()),
        ]);
        $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']);
        $this->assertSame(3, count($t->requests), 'tries');
        $keys = array_unique(array_map(static fn ($r) => $r->headers['Idempotency-Key'], $t->requests));
        $this->assertSame(1, count($keys), 'one Idempotency-Key on every try');
        $this->assertSame(1, count(array_unique(array_map(static fn ($r) => $r->body, $t->requests))), 'the same body on every try');
        $this->assertSame(2, count($slept), 'waits');
        $this->assertTrue($slept[1] >= $slept[0] / 2, 'backoff');
    }

    public function testGivenIdempotencyKeyIsSent(): void
    {
        [$c, $t] = $this->client([FakeTransport::ok(self::created())]);
        $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a'], 'order-A-1');
        $this->assertSame('order-A-1', $t->requests[0]->headers['Idempotency-Key']);
    }

    public function testRetryAfterIsHonoured(): void
    {
        [$c, $t, $slept] = $this->client([FakeTransport::error(429, 'rate_limited', 'slow down', ['retry-after' => '3']), FakeTransport::ok(self::created())]);
        $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']);
        $this->assertSame(3.0, $slept[0], 'waited Retry-After');
    }

    public function testErrorsAreTyped(): void
    {
        $cases = [
            '400 invalid_parameter, not retried' => [[FakeTransport::error(400, 'invalid_parameter')], InvalidRequestException::class, 400, 'invalid_parameter', 1],
            '401 invalid_sign' => [[FakeTransport::error(401, 'invalid_sign')], AuthenticationException::class, 401, 'invalid_sign', 1],
            '404 order_not_found' => [[FakeTransport::error(404, 'order_not_found')], NotFoundException::class, 404, 'order_not_found', 1],
            '409 refund_exceeds_paid, not retried' => [[FakeTransport::error(409, 'refund_exceeds_paid')], ConflictException::class, 409, 'refund_exceeds_paid', 1],
            '502 provider_refused, a decision' => [[FakeTransport::error(502, 'provider_refused')], ServerException::class, 502, 'provider_refused', 1],
            '429 until the retries end' => [array_fill(0, 3, FakeTransport::error(429, 'rate_limited')), RateLimitException::class, 429, 'rate_limited', 3],
            '409 idempotency_in_progress retried' => [array_fill(0, 3, FakeTransport::error(409, 'idempotency_in_progress')), ConflictException::class, 409, 'idempotency_in_progress', 3],
            'a proxy page' => [[new Response(400, [], '<html>bad gateway</html>')], UnexpectedResponseException::class, 400, null, 1],
        ];
        foreach ($cases as $name => [$script, $class, $status, $kind, $tries]) {
            [$c, $t] = $this->client($script);
            $e = $this->assertThrows($class, fn () => $c->refund('P1', '1.00'), $name);
            $this->assertSame($status, $e->getHttpStatus(), $name);
            $this->assertSame($kind, $e->getErrorKind(), $name);
            $this->assertSame($tries, count($t->requests), $name . ': tries');
            $this->assertSame($t->requests[0]->headers['Idempotency-Key'], $e->getIdempotencyKey(), $name . ': the key is told');
        }
    }

    public function testTransportFailureTellsTheKey(): void
    {
        [$c, $t] = $this->client([new TransportException('timed out'), new TransportException('timed out')], 1);
        $e = $this->assertThrows(TransportException::class, fn () => $c->cancel('P1'));
        $this->assertSame($t->requests[0]->headers['Idempotency-Key'], $e->getIdempotencyKey());
        $this->assertSame(2, count($t->requests));
    }

    public function testReads(): void
    {
        $page = ['page' => 2, 'limit' => 1, 'total' => 3, 'orders' => []];
        [$c, $t] = $this->client([FakeTransport::ok($page)]);
        $p = $c->orders(2, 1, ['status' => 'paid']);
        $this->assertTrue($p->hasMore(), 'page 2 of 3');
        parse_str((string) parse_url($t->requests[0]->url, PHP_URL_QUERY), $q);
        $this->assertSame(['appid' => '1001', 'key' => 'qk-uuid', 'action' => 'orders', 'page' => '2', 'limit' => '1', 'status' => 'paid'], $q);
        $this->assertSame('GET', $t->requests[0]->method);
        $this->assertTrue(!isset($t->requests[0]->headers['Idempotency-Key']), 'no key on a read');
    }

    public function testRefusedBeforeSending(): void
    {
        $cases = [
            'float amount' => fn (Client $c) => $c->create(['amount' => 10.5, 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']),
            'nested parameter' => fn (Client $c) => $c->create(['amount' => '1', 'x' => ['y' => 1]]),
            'no clientip' => fn () => (new Client(new Config('https://pay.example', '1', 'k'), new FakeTransport([])))->create(['amount' => '1']),
            'no query key' => fn () => (new Client(new Config('https://pay.example', '1', 'k'), new FakeTransport([])))->order('P1'),
            'no API key' => fn () => (new Client(new Config('https://pay.example', '1', '', 'q'), new FakeTransport([])))->cancel('P1'),
            'not http' => fn () => new Config('file:///etc/passwd', '1'),
        ];
        foreach ($cases as $name => $fn) {
            [$c, $t] = $this->client([]);
            $this->assertThrows(InvalidArgumentException::class, fn () => $fn($c), $name);
            $this->assertSame(0, count($t->requests), $name . ': nothing sent');
        }
    }

    public function testApiExceptionCatchesAll(): void
    {
        [$c] = $this->client([FakeTransport::error(403, 'clientip_mismatch', 'Request IP does not match clientip')]);
        $e = $this->assertThrows(ApiException::class, fn () => $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']));
        $this->assertSame('Request IP does not match clientip', $e->getMessage());
    }
}
