"""Typed errors: each API answer that is not a success becomes an APIError
subclass carrying the gateway's `error` kind and the HTTP status, so a caller
branches on a class or on .kind, never on message text."""

from __future__ import annotations

from typing import Dict, Optional, Type


class PaygateError(Exception):
    """Base of every error this SDK raises."""


class TransportError(PaygateError):
    """The gateway could not be reached or did not answer in time (after the
    retries). A POST may or may not have taken effect: call it again, the SDK
    resends the same Idempotency-Key only within one call, so query first
    (order / clientOrderId) before creating anew."""


class WebhookVerificationError(PaygateError):
    """A webhook failed verification: refuse it (answer non-2xx)."""


class APIError(PaygateError):
    """The gateway answered an error: kind is its `error` field (for example
    invalid_sign, order_not_found, rate_limited), status the HTTP status."""

    def __init__(self, status: int, kind: str, message: str, retry_after: Optional[float] = None) -> None:
        super().__init__("%d %s: %s" % (status, kind, message))
        self.status = status
        self.kind = kind
        self.message = message
        self.retry_after = retry_after


class InvalidRequestError(APIError):
    """400, 405, 413 or 422: the request is wrong or the business rule refuses it."""


class AuthenticationError(APIError):
    """401: unknown appid, wrong sign or wrong query key."""


class ForbiddenError(APIError):
    """403: merchant disabled, clientip mismatch."""


class NotFoundError(APIError):
    """404: no such order (another merchant's order looks the same)."""


class ConflictError(APIError):
    """409: state conflict, idempotency mismatch, refund over the paid amount."""


class RateLimitError(APIError):
    """429: too many requests; retry_after holds the server's Retry-After."""


class ServerError(APIError):
    """5xx: the gateway or a provider failed."""


_BY_STATUS: Dict[int, Type[APIError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: ForbiddenError,
    404: NotFoundError,
    405: InvalidRequestError,
    409: ConflictError,
    413: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitError,
}


def error_for(status: int, kind: str, message: str, retry_after: Optional[float] = None) -> APIError:
    """The APIError subclass for an HTTP status."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else APIError
    return cls(status, kind, message, retry_after)
