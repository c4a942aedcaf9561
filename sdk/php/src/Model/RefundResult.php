<?php

declare(strict_types=1);

namespace Paygate\Model;

/** The answer of a refund (RefundData): the refund as it stands and the order's refunded total. */
final class RefundResult extends Model
{
    public readonly string $refundId;
    public readonly string $paymentId;
    #[Optional]
    public readonly ?string $clientRefundId;
    public readonly string $amount;
    public readonly string $currency;
    #[Optional]
    public readonly ?string $reason;
    /** pending, succeeded or failed. */
    public readonly string $status;
    #[Optional]
    public readonly ?string $error;
    public readonly \DateTimeImmutable $createdAt;
    public readonly \DateTimeImmutable $updatedAt;
    /** The order's succeeded refunds in all, after this one. */
    public readonly string $refundedAmount;
    /** true when clientRefundId named an earlier refund, returned as it is now. */
    public readonly bool $idempotent;
}
