<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 403: merchant_disabled, clientip_mismatch, forbidden. */
final class PermissionException extends ApiException
{
}
