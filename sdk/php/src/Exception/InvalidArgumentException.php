<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** A call the SDK refuses before sending anything: a missing key, a float amount, a nested value. */
final class InvalidArgumentException extends \InvalidArgumentException implements PaygateException
{
}
