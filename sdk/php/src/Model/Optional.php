<?php

declare(strict_types=1);

namespace Paygate\Model;

/**
 * A field the answer may leave out (it is then null). Fields without it
 * are the schema's required ones: an answer without one is refused.
 */
#[\Attribute(\Attribute::TARGET_PROPERTY)]
final class Optional
{
}
