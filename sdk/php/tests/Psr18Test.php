<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Exception\InvalidArgumentException;
use Paygate\Exception\TransportException;
use Paygate\Tests\lib\TestCase;

/**
 * The PSR-18 door: any object with the standards' methods sends the
 * requests (here minimal stand-ins of a PSR-7 message, a PSR-17 factory and
 * a PSR-18 client, since the SDK depends on no PSR package).
 */
final class Psr18Test extends TestCase
{
    public function testSendsThroughTheGivenClient(): void
    {
        $msg = new class () {
            public string $method = '';
            public string $uri = '';
            public array $headers = [];
            public string $body = '';
            public int $status = 200;

            public function withHeader(string $n, string $v): static
            {
                $c = clone $this;
                $c->headers[$n] = [$v];
                return $c;
            }

            public function withBody(string $b): static
            {
                $c = clone $this;
                $c->body = $b;
                return $c;
            }

            public function getStatusCode(): int
            {
                return $this->status;
            }

            public function getHeaders(): array
            {
                return $this->headers;
            }

            public function getBody(): string
            {
                return $this->body;
            }
        };
        $factory = new class ($msg) {
            public function __construct(private object $proto)
            {
            }

            public function createRequest(string $method, string $uri): object
            {
                $r = clone $this->proto;
                $r->method = $method;
                $r->uri = $uri;
                return $r;
            }

            public function createStream(string $content): string
            {
                return $content;
            }
        };
        $http = new class ($msg) {
            public array $sent = [];

            public function __construct(private object $proto)
            {
            }

            public function sendRequest(object $request): object
            {
                $this->sent[] = $request;
                $a = clone $this->proto;
                $a->headers = ['Content-Type' => ['application/json']];
                $a->body = (string) json_encode(['code' => 0, 'msg' => 'success', 'data' => ClientTest::created()]);
                return $a;
            }
        };
        $c = Client::withPsr18(new Config('https://pay.example', '1001', ClientTest::KEY, 'q', '203.0.113.7'), $http, $factory, $factory);
        $this->assertSame('P1', $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a'])->paymentId);
        $r = $http->sent[0];
        $this->assertSame('POST', $r->method);
        $this->assertSame('https://pay.example/api/createorder', $r->uri);
        $this->assertTrue(isset($r->headers['Idempotency-Key'], $r->headers['User-Agent']), 'headers passed on');
        $this->assertTrue(str_contains($r->body, '"action":"createorder"'), 'body passed on');

        $this->assertThrows(InvalidArgumentException::class, fn () => Client::withPsr18(new Config('https://pay.example', '1'), new \stdClass(), $factory, $factory), 'not a client');
    }

    public function testClientExceptionIsATransportFailure(): void
    {
        if (!interface_exists('Psr\Http\Client\ClientExceptionInterface')) {
            eval('namespace Psr\Http\Client; interface ClientExceptionInterface extends \Throwable {}');
        }
        $http = new class () {
            public int $calls = 0;

            public function sendRequest(object $r): object
            {
                $this->calls++;
                throw new class ('refused') extends \RuntimeException implements \Psr\Http\Client\ClientExceptionInterface {
                };
            }
        };
        $factory = new class () {
            public function createRequest(string $m, string $u): object
            {
                return new class () {
                    public function withHeader(string $n, string $v): static
                    {
                        return $this;
                    }

                    public function withBody(mixed $b): static
                    {
                        return $this;
                    }
                };
            }

            public function createStream(string $c): string
            {
                return $c;
            }
        };
        $config = new Config('https://pay.example', '1001', 'k', 'q', '203.0.113.7', maxRetries: 1, retryBaseDelay: 0.0);
        $e = $this->assertThrows(TransportException::class, fn () => Client::withPsr18($config, $http, $factory, $factory)->cancel('P1'));
        $this->assertSame(2, $http->calls, 'retried once');
        $this->assertTrue($e->getIdempotencyKey() !== null, 'the key is told');
    }
}
