<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Exception\TransportException;
use Paygate\Http\CurlTransport;
use Paygate\Tests\lib\TestCase;

/** The curl transport's time-out and its refusals, on loopback sockets of the test's own. */
final class CurlTest extends TestCase
{
    public function testTimeOutIsATransportFailure(): void
    {
        // Accepts connections (the kernel's backlog) and never answers.
        $silent = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr) ?: $this->fail("listen: $errstr");
        try {
            $addr = (string) stream_socket_get_name($silent, false);
            $config = new Config("http://$addr", '1001', 'k', 'q', '127.0.0.1', timeout: 0.5, connectTimeout: 0.5, maxRetries: 1, retryBaseDelay: 0.0);
            $e = $this->assertThrows(TransportException::class, fn () => (new Client($config))->cancel('P1'));
            $this->assertTrue(stripos($e->getMessage(), 'timed out') !== false || stripos($e->getMessage(), 'timeout') !== false, $e->getMessage());
            $this->assertTrue($e->getIdempotencyKey() !== null, 'the key is told');
        } finally {
            fclose($silent);
        }
    }

    public function testQueryKeyLeftOutOfMessages(): void
    {
        $free = stream_socket_server('tcp://127.0.0.1:0') ?: $this->fail('listen');
        $addr = (string) stream_socket_get_name($free, false);
        fclose($free); // nothing listens there now: connection refused
        $config = new Config("http://$addr", '1001', 'k', 'secret-query-key', maxRetries: 0);
        $e = $this->assertThrows(TransportException::class, fn () => (new Client($config))->order('P1'));
        $this->assertTrue(!str_contains($e->getMessage(), 'secret-query-key'), 'the message holds no query key: ' . $e->getMessage());
        $this->assertSame('http://x/api/order?…', CurlTransport::redact('http://x/api/order?appid=1&key=secret'));
    }
}
