<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 404: order_not_found, not_found. */
final class NotFoundException extends ApiException
{
}
