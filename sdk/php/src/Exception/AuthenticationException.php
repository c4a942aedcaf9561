<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 401: invalid_appid, invalid_sign, invalid_key, bad_credentials. */
final class AuthenticationException extends ApiException
{
}
