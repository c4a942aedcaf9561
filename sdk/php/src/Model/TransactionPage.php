<?php

declare(strict_types=1);

namespace Paygate\Model;

/** A page of transactions, newest first; nextCursor asks for the next one. */
final class TransactionPage extends Model
{
    /** @var Transaction[] */
    #[ListOf(Transaction::class)]
    public readonly array $transactions;
    /** null on the last page. */
    #[Optional]
    public readonly ?string $nextCursor;
}
