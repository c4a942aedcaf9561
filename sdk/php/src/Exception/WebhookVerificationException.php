<?php

declare(strict_types=1);

namespace Paygate\Exception;

/**
 * A webhook that must not be trusted: answer it with a 4xx and do not act
 * on it. getReason() is one of the REASON_ constants, for logs.
 */
final class WebhookVerificationException extends \RuntimeException implements PaygateException
{
    public const REASON_MISSING_HEADER = 'missing_header';
    public const REASON_BAD_TIMESTAMP = 'bad_timestamp';
    public const REASON_STALE_TIMESTAMP = 'stale_timestamp';
    public const REASON_BAD_SIGNATURE = 'bad_signature';
    public const REASON_BAD_SIGN = 'bad_sign';
    public const REASON_BAD_BODY = 'bad_body';

    public function __construct(private readonly string $reason, string $message)
    {
        parent::__construct($message);
    }

    public function getReason(): string
    {
        return $this->reason;
    }
}
