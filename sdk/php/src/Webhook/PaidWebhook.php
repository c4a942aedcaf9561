<?php

declare(strict_types=1);

namespace Paygate\Webhook;

use Paygate\Model\Model;
use Paygate\Model\Optional;
use Paygate\Model\Wire;

/**
 * The paid-order webhook's form (SPEC.md "Events"), verified. Its status is
 * the string "2"; its amount the exact two-decimal string.
 */
final class PaidWebhook extends Model
{
    public readonly string $paymentId;
    public readonly string $amount;
    public readonly string $currency;
    public readonly string $status;
    #[Wire('status_str')]
    public readonly string $statusStr;
    public readonly string $paymentMethod;
    public readonly \DateTimeImmutable $createdAt;
    #[Optional]
    public readonly ?\DateTimeImmutable $completedTime;
    #[Optional]
    public readonly ?string $description;
    #[Optional]
    public readonly ?string $clientOrderId;
    public readonly string $sign;
    #[Wire('sign_type')]
    public readonly string $signType;
}
