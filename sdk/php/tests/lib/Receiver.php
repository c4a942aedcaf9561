<?php

declare(strict_types=1);

namespace Paygate\Tests\lib;

/**
 * A webhook receiver of the test's own: PHP's built-in server on a free
 * loopback port with receiver.php as its router. stop() ends it (the
 * process it started, by its handle).
 */
final class Receiver
{
    public readonly string $url;
    private readonly string $dir;
    /** @var resource */
    private $proc;

    public function __construct()
    {
        $this->dir = sys_get_temp_dir() . '/paygate-php-sdk-' . bin2hex(random_bytes(6));
        mkdir($this->dir, 0700);
        $port = self::freePort();
        $this->url = "http://127.0.0.1:$port";
        $env = getenv() + ['PAYGATE_RECEIVER_DIR' => $this->dir];
        $env['PAYGATE_RECEIVER_DIR'] = $this->dir;
        $null = ['file', '/dev/null', 'w'];
        $proc = proc_open([PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . '/receiver.php'], [0 => ['file', '/dev/null', 'r'], 1 => $null, 2 => $null], $pipes, null, $env);
        if (!is_resource($proc)) {
            throw new \RuntimeException('could not start php -S');
        }
        $this->proc = $proc;
        $this->waitListening($port);
    }

    private static function freePort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($s === false) {
            throw new \RuntimeException("no free port: $errstr");
        }
        $name = (string) stream_socket_get_name($s, false);
        fclose($s);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    private function waitListening(int $port): void
    {
        for ($i = 0; $i < 100; $i++) {
            $c = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.2);
            if ($c !== false) {
                fclose($c);
                return;
            }
            usleep(50_000);
        }
        $this->stop();
        throw new \RuntimeException("php -S did not listen on $port");
    }

    /**
     * The first request whose headers satisfy $match, waiting up to
     * $seconds: ['headers' => [...], 'body' => raw body].
     */
    public function await(callable $match, float $seconds = 30.0): array
    {
        $until = microtime(true) + $seconds;
        do {
            $files = glob($this->dir . '/*.json') ?: [];
            sort($files);
            foreach ($files as $f) {
                $r = json_decode((string) file_get_contents($f), true, 512, JSON_THROW_ON_ERROR);
                if ($match($r)) {
                    return $r;
                }
            }
            usleep(100_000);
        } while (microtime(true) < $until);
        throw new Failure(sprintf('no matching webhook within %.0f s (%d received)', $seconds, count($files)));
    }

    public function stop(): void
    {
        if (is_resource($this->proc)) {
            proc_terminate($this->proc);
            proc_close($this->proc);
        }
        foreach (glob($this->dir . '/*') ?: [] as $f) {
            unlink($f);
        }
        @rmdir($this->dir);
    }

    public function __destruct()
    {
        $this->stop();
    }
}
