<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** Other 4xx: invalid_request, missing_parameter, invalid_parameter, request_too_large, refund_not_supported, insufficient_balance, …. */
final class InvalidRequestException extends ApiException
{
}
