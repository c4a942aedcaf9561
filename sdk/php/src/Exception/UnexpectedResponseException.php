<?php

declare(strict_types=1);

namespace Paygate\Exception;

/**
 * An answer that is not the gateway's JSON (a proxy's error page, a cut
 * body) or lacks a field the contract requires. getErrorKind() is null.
 */
final class UnexpectedResponseException extends ApiException
{
}
