<?php

declare(strict_types=1);

namespace Paygate\Exception;

/**
 * The gateway answered with an error: its HTTP status, its error kind
 * (invalid_parameter, invalid_sign, order_not_found, rate_limited, …; the
 * OpenAPI document's ErrorKind) and its message, which is safe to show.
 * Subclasses group the statuses; catch this one for all of them.
 */
class ApiException extends \RuntimeException implements PaygateException
{
    public function __construct(
        private readonly int $httpStatus,
        private readonly ?string $errorKind,
        string $message,
        private readonly ?int $retryAfter = null,
        private readonly ?string $idempotencyKey = null,
    ) {
        parent::__construct($message, $httpStatus);
    }

    /** The status of the answer (also getCode()). */
    public function getHttpStatus(): int
    {
        return $this->httpStatus;
    }

    /** The answer's error kind; null when the answer was not the gateway's JSON error (a proxy's page). */
    public function getErrorKind(): ?string
    {
        return $this->errorKind;
    }

    /** Retry-After in seconds, on a 429. */
    public function getRetryAfter(): ?int
    {
        return $this->retryAfter;
    }

    /** The Idempotency-Key the call was sent with (POSTs). */
    public function getIdempotencyKey(): ?string
    {
        return $this->idempotencyKey;
    }

    /** The exception for an error answer, by its status. */
    public static function fromAnswer(int $status, ?string $kind, string $msg, ?int $retryAfter = null, ?string $idempotencyKey = null): self
    {
        $class = match (true) {
            $status === 401 => AuthenticationException::class,
            $status === 403 => PermissionException::class,
            $status === 404 => NotFoundException::class,
            $status === 409 => ConflictException::class,
            $status === 429 => RateLimitException::class,
            $status >= 500 => ServerException::class,
            $status >= 400 => InvalidRequestException::class,
            default => self::class,
        };
        return new $class($status, $kind, $msg, $retryAfter, $idempotencyKey);
    }
}
