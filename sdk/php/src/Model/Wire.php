<?php

declare(strict_types=1);

namespace Paygate\Model;

/**
 * A property's name on the wire when it differs from the property's
 * (status_str → statusStr). Without it the names are the same.
 */
#[\Attribute(\Attribute::TARGET_PROPERTY)]
final class Wire
{
    public function __construct(public readonly string $name)
    {
    }
}
