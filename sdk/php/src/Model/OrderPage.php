<?php

declare(strict_types=1);

namespace Paygate\Model;

/** A page of orders (action=orders), newest first. */
final class OrderPage extends Model
{
    public readonly int $page;
    public readonly int $limit;
    /** Orders matching the filters in all pages. */
    public readonly int $total;
    /** @var Order[] */
    #[ListOf(Order::class)]
    public readonly array $orders;

    public function hasMore(): bool
    {
        return $this->page * $this->limit < $this->total;
    }
}
