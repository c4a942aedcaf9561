<?php

declare(strict_types=1);

namespace Paygate;

use Paygate\Exception\InvalidArgumentException;

/**
 * How a Client reaches the gateway and as whom. The API key signs creates,
 * cancels and refunds and never leaves the server; the query key reads
 * orders and balances. clientIp is the merchant server's public address as
 * the gateway sees it: a create must carry it (SPEC.md), and it is checked.
 */
final class Config
{
    public readonly string $baseUrl;

    /**
     * @param string $baseUrl        the gateway, e.g. https://pay.example.com
     * @param float  $timeout        seconds a whole request may take
     * @param float  $connectTimeout seconds the connection may take
     * @param int    $maxRetries     retries of a transport failure, 429, 500, 503 or 409 idempotency_in_progress
     * @param float  $retryBaseDelay seconds before the first retry; doubled each time, with jitter
     * @param float  $maxRetryDelay  the longest wait between two tries, Retry-After included
     */
    public function __construct(
        string $baseUrl,
        public readonly string $appId,
        public readonly string $apiKey = '',
        public readonly string $queryKey = '',
        public readonly ?string $clientIp = null,
        public readonly float $timeout = 30.0,
        public readonly float $connectTimeout = 10.0,
        public readonly int $maxRetries = 2,
        public readonly float $retryBaseDelay = 0.5,
        public readonly float $maxRetryDelay = 10.0,
    ) {
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->validate();
    }

    private function validate(): void
    {
        $scheme = parse_url($this->baseUrl, PHP_URL_SCHEME);
        $host = parse_url($this->baseUrl, PHP_URL_HOST);
        if (!in_array($scheme, ['http', 'https'], true) || !is_string($host) || $host === '') {
            throw new InvalidArgumentException('baseUrl must be an http or https URL with a host');
        }
        if ($this->appId === '') {
            throw new InvalidArgumentException('appId is required');
        }
        if ($this->timeout <= 0 || $this->connectTimeout <= 0) {
            throw new InvalidArgumentException('timeout and connectTimeout must be positive');
        }
        if ($this->maxRetries < 0 || $this->retryBaseDelay < 0 || $this->maxRetryDelay < 0) {
            throw new InvalidArgumentException('maxRetries and the retry delays must not be negative');
        }
    }
}
