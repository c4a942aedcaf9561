<?php

declare(strict_types=1);

namespace Paygate\Http;

use Paygate\Client;
use Paygate\Config;
use Paygate\Exception\ApiException;
use Paygate\Exception\TransportException;
use Paygate\Exception\UnexpectedResponseException;

/**
 * One call to the gateway, with its retries: a transport failure, a 429,
 * a 500, 503 or 504 and a 409 idempotency_in_progress are tried again after
 * a growing, jittered delay (Retry-After when longer). A POST always
 * carries an Idempotency-Key, the same on every try, so a retried create,
 * cancel or refund is done once: the gateway replays the first decided
 * answer. A 502 provider_refused is a decision and is not retried.
 */
final class Caller
{
    private const RETRY_STATUS = [429, 500, 503, 504];

    /** @var \Closure(float): void */
    private readonly \Closure $sleep;

    public function __construct(private readonly Config $config, private readonly Transport $transport, ?\Closure $sleep = null)
    {
        $this->sleep = $sleep ?? static function (float $seconds): void {
            usleep((int) round($seconds * 1_000_000));
        };
    }

    /** GET path?query and the answer's data. */
    public function get(string $path, array $query): mixed
    {
        $url = $this->config->baseUrl . $path . '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        return $this->call(new Request('GET', $url, $this->headers()), null);
    }

    /** POST the JSON body and the answer's data; $idempotencyKey null makes one. */
    public function post(string $path, array $body, ?string $idempotencyKey = null): mixed
    {
        $key = $idempotencyKey ?? self::newIdempotencyKey();
        $headers = $this->headers() + ['Content-Type' => 'application/json', 'Idempotency-Key' => $key];
        $json = json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        return $this->call(new Request('POST', $this->config->baseUrl . $path, $headers, $json), $key);
    }

    /** A fresh key: 128 random bits, hex. */
    public static function newIdempotencyKey(): string
    {
        return bin2hex(random_bytes(16));
    }

    /** @return array<string, string> */
    private function headers(): array
    {
        return ['Accept' => 'application/json', 'User-Agent' => Client::userAgent()];
    }

    private function call(Request $request, ?string $key): mixed
    {
        for ($try = 0; ; $try++) {
            $last = $try >= $this->config->maxRetries;
            try {
                $answer = $this->transport->send($request);
            } catch (TransportException $e) {
                if ($last) {
                    throw new TransportException($e->getMessage(), $key, $e);
                }
                ($this->sleep)($this->delay($try, null));
                continue;
            }
            try {
                return self::decode($answer, $key);
            } catch (ApiException $e) {
                if ($last || !self::retryable($e)) {
                    throw $e;
                }
                ($this->sleep)($this->delay($try, $e->getRetryAfter()));
            }
        }
    }

    private static function retryable(ApiException $e): bool
    {
        return in_array($e->getHttpStatus(), self::RETRY_STATUS, true)
            || ($e->getHttpStatus() === 409 && $e->getErrorKind() === 'idempotency_in_progress');
    }

    /** Seconds before try $try + 1: base·2^try, jittered to 50–100 %, at least Retry-After, at most the cap. */
    private function delay(int $try, ?int $retryAfter): float
    {
        $d = $this->config->retryBaseDelay * (2 ** $try) * (0.5 + mt_rand() / mt_getrandmax() / 2);
        if ($retryAfter !== null) {
            $d = max($d, (float) $retryAfter);
        }
        return min($d, $this->config->maxRetryDelay);
    }

    /** The answer's data, or its error as an exception. */
    public static function decode(Response $answer, ?string $key): mixed
    {
        $json = json_decode($answer->body, true);
        $ok = $answer->status >= 200 && $answer->status < 300;
        if ($ok && is_array($json) && ($json['code'] ?? null) === 0 && array_key_exists('data', $json)) {
            return $json['data'];
        }
        $retryAfter = $answer->header('retry-after');
        $retryAfter = $retryAfter !== null && ctype_digit($retryAfter) ? (int) $retryAfter : null;
        if (!$ok && is_array($json) && is_string($json['error'] ?? null)) {
            $msg = is_string($json['msg'] ?? null) ? $json['msg'] : $json['error'];
            throw ApiException::fromAnswer($answer->status, $json['error'], $msg, $retryAfter, $key);
        }
        throw new UnexpectedResponseException($answer->status, null, sprintf('HTTP %d: not the gateway\'s JSON answer', $answer->status), $retryAfter, $key);
    }
}
