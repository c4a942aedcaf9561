<?php

declare(strict_types=1);

namespace Paygate\Model;

/** An array property whose items are models of this class. */
#[\Attribute(\Attribute::TARGET_PROPERTY)]
final class ListOf
{
    /** @param class-string<Model> $class */
    public function __construct(public readonly string $class)
    {
    }
}
