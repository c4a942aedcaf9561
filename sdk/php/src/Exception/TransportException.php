<?php

declare(strict_types=1);

namespace Paygate\Exception;

/**
 * The gateway could not be reached or did not answer in time, after the
 * retries. A create, cancel or refund that ends so may or may not have
 * been done: call again with the same Idempotency-Key (getIdempotencyKey)
 * to learn its answer without doing it twice.
 */
final class TransportException extends \RuntimeException implements PaygateException
{
    public function __construct(string $message, private readonly ?string $idempotencyKey = null, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
    }

    public function getIdempotencyKey(): ?string
    {
        return $this->idempotencyKey;
    }
}
