<?php

declare(strict_types=1);

namespace Paygate\Model;

/** One refund of an order, as action=order lists it and a refund event carries it. */
final class Refund extends Model
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
    /** Why a failed refund failed. */
    #[Optional]
    public readonly ?string $error;
    public readonly \DateTimeImmutable $createdAt;
    public readonly \DateTimeImmutable $updatedAt;
}
