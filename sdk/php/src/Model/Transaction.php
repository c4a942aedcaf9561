<?php

declare(strict_types=1);

namespace Paygate\Model;

/** One journal transaction of the merchant (GET /api/balance?action=transactions). */
final class Transaction extends Model
{
    public readonly string $id;
    /** payment, refund, settlement, … */
    public readonly string $type;
    /** The order, refund or top-up it is for. */
    public readonly string $ref;
    public readonly \DateTimeImmutable $time;
    public readonly string $currency;
    public readonly string $gross;
    public readonly string $fee;
    public readonly string $net;
    /** Settlements: what became available. */
    #[Optional]
    public readonly ?string $settled;
}
