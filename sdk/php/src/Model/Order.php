<?php

declare(strict_types=1);

namespace Paygate\Model;

/**
 * An order as GET /api/order answers it (and as a cancel answers it, and as
 * an event's data carries it). Amounts are exact strings with two decimals.
 */
final class Order extends Model
{
    public const PENDING = 0;
    public const READY = 1;
    public const PAID = 2;
    public const FAILED = 3;
    public const CANCELLED = 4;

    public readonly string $paymentId;
    public readonly string $orderId;
    /** 0 pending, 1 ready, 2 paid, 3 failed, 4 cancelled. */
    public readonly int $status;
    #[Wire('status_str')]
    public readonly string $statusStr;
    public readonly string $amount;
    public readonly string $currency;
    public readonly string $paymentMethod;
    #[Optional]
    public readonly ?string $description;
    #[Optional]
    public readonly ?string $clientOrderId;
    #[Optional, Wire('notify_url')]
    public readonly ?string $notifyUrl;
    #[Optional, Wire('return_url')]
    public readonly ?string $returnUrl;
    public readonly \DateTimeImmutable $createdAt;
    #[Optional]
    public readonly ?\DateTimeImmutable $completedTime;
    #[Optional]
    public readonly ?string $redirectUrl;
    #[Optional]
    public readonly ?string $selectUrl;
    #[Optional]
    public readonly ?string $nextAction;
    #[Optional]
    public readonly ?string $payableAmount;
    public readonly ?string $qrImageUrl;
    public readonly bool $paidWithBalance;
    public readonly bool $sandbox;
    #[Optional]
    public readonly ?string $chargeAmount;
    #[Optional]
    public readonly ?string $chargeCurrency;
    #[Optional]
    public readonly ?string $fxRate;
    #[Optional]
    public readonly ?string $payCurrency;
    /** What the order's succeeded refunds gave back; null when nothing was. */
    #[Optional]
    public readonly ?string $refundedAmount;
    /** @var Refund[]|null action=order only: a paid order's refunds, oldest first. */
    #[Optional, ListOf(Refund::class)]
    public readonly ?array $refunds;
    /** usdt_direct: where the review of a submitted transaction hash stands. */
    #[Optional]
    public readonly ?array $usdtReview;

    public function isPaid(): bool
    {
        return $this->status === self::PAID;
    }

    /** Where to send the payer: redirectUrl, else selectUrl, else null (SPEC.md's rule ends at /payment/{paymentId}). */
    public function payerUrl(): ?string
    {
        return $this->redirectUrl ?? $this->selectUrl;
    }
}
