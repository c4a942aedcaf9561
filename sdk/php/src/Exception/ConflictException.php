<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 409: conflict, idempotency_mismatch, idempotency_in_progress, refund_exceeds_paid, refund_mismatch. */
final class ConflictException extends ApiException
{
}
