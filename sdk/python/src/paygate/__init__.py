"""Official Python client of the paygate payment gateway (SPEC.md's API).

    client = paygate.Client("https://pay.example.com", appid, api_key, query_key, clientip="203.0.113.7")
    order = client.create("100.50", "CNY", "wallet_a", client_order_id="SHOP-42")
"""

from ._version import __version__
from .client import Client
from .errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    PaygateError,
    RateLimitError,
    ServerError,
    TransportError,
    WebhookVerificationError,
)
from .signing import sign, sign_base
from .types import Balance, CreatedOrder, CreateParams, Event, Order, OrderPage, PaidWebhook, Refund, RefundResult
from .webhooks import parse_event, verify_headers, verify_paid

__all__ = [
    "__version__", "Client",
    "APIError", "AuthenticationError", "ConflictError", "ForbiddenError", "InvalidRequestError",
    "NotFoundError", "PaygateError", "RateLimitError", "ServerError", "TransportError",
    "WebhookVerificationError",
    "sign", "sign_base",
    "Balance", "CreatedOrder", "CreateParams", "Event", "Order", "OrderPage", "PaidWebhook", "Refund",
    "RefundResult",
    "parse_event", "verify_headers", "verify_paid",
]
