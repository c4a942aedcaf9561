<?php

declare(strict_types=1);

namespace Paygate\Model;

/** The merchant's money in one currency (GET /api/balance); signed decimal strings. */
final class Balance extends Model
{
    public readonly string $currency;
    /** Paid, not yet settled. */
    public readonly string $pending;
    /** Settled: spendable and refundable. */
    public readonly string $available;
    /** Held back from settlements for a while. */
    public readonly string $reserve;
    /** Asked to be paid out, not yet sent. */
    public readonly string $payoutHold;
    public readonly string $total;
}
