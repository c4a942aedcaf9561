<?php

declare(strict_types=1);

namespace Paygate\Exception;

/** 429 rate_limited; getRetryAfter() says when to try again. */
final class RateLimitException extends ApiException
{
}
