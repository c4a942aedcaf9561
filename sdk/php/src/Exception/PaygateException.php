<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** Every exception the SDK throws implements this, so one catch takes them all. */
interface PaygateException extends \Throwable
{
}
