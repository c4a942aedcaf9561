<?php

declare(strict_types=1);

namespace Paygate\Model;

/** The answer of a create (CreateOrderData): the order and where the payer goes. */
final class CreatedOrder extends Model
{
    public readonly string $paymentId;
    public readonly string $orderId;
    /** Where to send the payer; null for a balance payment. */
    public readonly ?string $redirectUrl;
    #[Optional]
    public readonly ?string $selectUrl;
    #[Optional]
    public readonly ?string $nextAction;
    #[Optional]
    public readonly ?string $payableAmount;
    public readonly ?string $qrImageUrl;
    public readonly int $status;
    public readonly string $statusString;
    public readonly bool $paidWithBalance;
    /** true when this is the live order of the same clientOrderId, not a new one. */
    public readonly bool $idempotent;
    public readonly string $amount;
    public readonly string $currency;
    public readonly string $paymentMethod;
    #[Optional]
    public readonly ?string $clientOrderId;
    public readonly \DateTimeImmutable $createdAt;

    /** SPEC.md's redirect rule: redirectUrl, else selectUrl, else the gateway's /payment/{paymentId}. */
    public function payerUrl(string $baseUrl): string
    {
        return $this->redirectUrl ?? $this->selectUrl ?? rtrim($baseUrl, '/') . '/payment/' . rawurlencode($this->paymentId);
    }
}
