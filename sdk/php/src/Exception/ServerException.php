<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 5xx: internal_error, provider_refused, unavailable. */
final class ServerException extends ApiException
{
}
