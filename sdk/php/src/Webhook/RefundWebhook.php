<?php

declare(strict_types=1);

namespace Paygate\Webhook;

use Paygate\Model\Model;
use Paygate\Model\Optional;
use Paygate\Model\Wire;

/**
 * The refund webhook's form, sent to the same notify_url as the paid one
 * when a refund ends (event=refund), verified.
 */
final class RefundWebhook extends Model
{
    /** Always "refund". */
    public readonly string $event;
    public readonly string $paymentId;
    public readonly string $refundId;
    #[Optional]
    public readonly ?string $clientRefundId;
    #[Optional]
    public readonly ?string $clientOrderId;
    /** This refund's amount. */
    public readonly string $amount;
    public readonly string $currency;
    /** succeeded or failed. */
    public readonly string $refundStatus;
    /** The order's succeeded refunds in all, after this one. */
    public readonly string $refundedAmount;
    #[Optional]
    public readonly ?string $reason;
    public readonly \DateTimeImmutable $createdAt;
    public readonly \DateTimeImmutable $updatedAt;
    public readonly string $sign;
    #[Wire('sign_type')]
    public readonly string $signType;
}
