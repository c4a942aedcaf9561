"""The gateway's objects as dataclasses. Each names the OpenAPI schema it
mirrors (OPENAPI_SCHEMA) and each field its JSON name (metadata "json"); the
SDK's tests hold them to the document, so the two cannot drift. Unknown JSON
members are ignored, so a newer gateway does not break an older SDK."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Type, TypeVar

try:  # Python 3.9 has TypedDict in typing.
    from typing import TypedDict
except ImportError:  # pragma: no cover
    TypedDict = dict  # type: ignore

T = TypeVar("T")

# Status codes of SPEC.md's order states.
PENDING, READY, PAID, FAILED, CANCELLED = 0, 1, 2, 3, 4


def _j(name: str, default: Any = dataclasses.MISSING) -> Any:
    if default is dataclasses.MISSING:
        return field(metadata={"json": name})
    return field(default=default, metadata={"json": name})


def json_name(f: "dataclasses.Field[Any]") -> str:
    """The JSON member a dataclass field stands for."""
    return str(f.metadata.get("json", f.name))


def from_json(cls: Type[T], data: Mapping[str, Any]) -> T:
    """Builds cls from a JSON object; a missing required member is a ValueError."""
    if not isinstance(data, Mapping):
        raise ValueError("%s: expected a JSON object" % cls.__name__)
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = json_name(f)
        if name in data:
            kwargs[f.name] = _convert(f.metadata.get("item"), data[name])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:  # type: ignore[misc]
            raise ValueError("%s: the answer has no %s" % (cls.__name__, name))
    return cls(**kwargs)


def _convert(item: Any, value: Any) -> Any:
    if item is None or value is None:
        return value
    return [from_json(item, v) for v in value]


@dataclass(frozen=True)
class Refund:
    """One refund of an order (action=order lists a paid order's refunds)."""

    OPENAPI_SCHEMA: ClassVar[str] = "Refund"
    refund_id: str = _j("refundId")
    payment_id: str = _j("paymentId")
    amount: str = _j("amount")
    currency: str = _j("currency")
    status: str = _j("status")
    created_at: str = _j("createdAt")
    updated_at: str = _j("updatedAt")
    client_refund_id: Optional[str] = _j("clientRefundId", None)
    reason: Optional[str] = _j("reason", None)
    error: Optional[str] = _j("error", None)


@dataclass(frozen=True)
class RefundResult:
    """The answer of a refund: the refund as it stands and the order's total refunded."""

    OPENAPI_SCHEMA: ClassVar[str] = "RefundData"
    refund_id: str = _j("refundId")
    payment_id: str = _j("paymentId")
    amount: str = _j("amount")
    currency: str = _j("currency")
    status: str = _j("status")
    created_at: str = _j("createdAt")
    updated_at: str = _j("updatedAt")
    refunded_amount: str = _j("refundedAmount")
    idempotent: bool = _j("idempotent")
    client_refund_id: Optional[str] = _j("clientRefundId", None)
    reason: Optional[str] = _j("reason", None)
    error: Optional[str] = _j("error", None)


@dataclass(frozen=True)
class Order:
    """An order as GET /api/order answers it (amounts are two-decimal strings)."""

    OPENAPI_SCHEMA: ClassVar[str] = "Order"
    payment_id: str = _j("paymentId")
    order_id: str = _j("orderId")
    status: int = _j("status")
    status_str: str = _j("status_str")
    amount: str = _j("amount")
    currency: str = _j("currency")
    payment_method: str = _j("paymentMethod")
    created_at: str = _j("createdAt")
    qr_image_url: Optional[str] = _j("qrImageUrl")
    paid_with_balance: bool = _j("paidWithBalance")
    sandbox: bool = _j("sandbox")
    description: Optional[str] = _j("description", None)
    client_order_id: Optional[str] = _j("clientOrderId", None)
    notify_url: Optional[str] = _j("notify_url", None)
    return_url: Optional[str] = _j("return_url", None)
    completed_time: Optional[str] = _j("completedTime", None)
    redirect_url: Optional[str] = _j("redirectUrl", None)
    select_url: Optional[str] = _j("selectUrl", None)
    next_action: Optional[str] = _j("nextAction", None)
    payable_amount: Optional[str] = _j("payableAmount", None)
    charge_amount: Optional[str] = _j("chargeAmount", None)
    charge_currency: Optional[str] = _j("chargeCurrency", None)
    fx_rate: Optional[str] = _j("fxRate", None)
    pay_currency: Optional[str] = _j("payCurrency", None)
    refunded_amount: Optional[str] = _j("refundedAmount", None)
    refunds: Optional[List[Refund]] = field(default=None, metadata={"json": "refunds", "item": Refund})
    usdt_review: Optional[Dict[str, Any]] = _j("usdtReview", None)


@dataclass(frozen=True)
class CreatedOrder:
    """The answer of a create: where to send the payer (pay_url)."""

    OPENAPI_SCHEMA: ClassVar[str] = "CreateOrderData"
    payment_id: str = _j("paymentId")
    order_id: str = _j("orderId")
    redirect_url: Optional[str] = _j("redirectUrl")
    qr_image_url: Optional[str] = _j("qrImageUrl")
    status: int = _j("status")
    status_string: str = _j("statusString")
    paid_with_balance: bool = _j("paidWithBalance")
    idempotent: bool = _j("idempotent")
    amount: str = _j("amount")
    currency: str = _j("currency")
    payment_method: str = _j("paymentMethod")
    created_at: str = _j("createdAt")
    select_url: Optional[str] = _j("selectUrl", None)
    next_action: Optional[str] = _j("nextAction", None)
    payable_amount: Optional[str] = _j("payableAmount", None)
    client_order_id: Optional[str] = _j("clientOrderId", None)

    def pay_url(self, base_url: str) -> str:
        """SPEC.md's redirect rule: redirectUrl, else selectUrl, else /payment/{id}."""
        if self.redirect_url:
            return self.redirect_url
        if self.select_url:
            return self.select_url
        return base_url.rstrip("/") + "/payment/" + self.payment_id


@dataclass(frozen=True)
class OrderPage:
    """One page of action=orders, newest first."""

    OPENAPI_SCHEMA: ClassVar[str] = "OrderPage"
    page: int = _j("page")
    limit: int = _j("limit")
    total: int = _j("total")
    orders: List[Order] = field(metadata={"json": "orders", "item": Order})


@dataclass(frozen=True)
class Balance:
    """The merchant's money in one currency (signed two-decimal strings)."""

    OPENAPI_SCHEMA: ClassVar[str] = "Balance"
    currency: str = _j("currency")
    pending: str = _j("pending")
    available: str = _j("available")
    reserve: str = _j("reserve")
    payout_hold: str = _j("payoutHold")
    total: str = _j("total")


@dataclass(frozen=True)
class PaidWebhook:
    """SPEC.md's paid-order callback (form body), once verified."""

    OPENAPI_SCHEMA: ClassVar[str] = "PaidWebhook"
    payment_id: str = _j("paymentId")
    amount: str = _j("amount")
    currency: str = _j("currency")
    status: str = _j("status")
    status_str: str = _j("status_str")
    payment_method: str = _j("paymentMethod")
    created_at: str = _j("createdAt")
    sign: str = _j("sign")
    sign_type: str = _j("sign_type")
    completed_time: Optional[str] = _j("completedTime", None)
    description: Optional[str] = _j("description", None)
    client_order_id: Optional[str] = _j("clientOrderId", None)


@dataclass(frozen=True)
class Event:
    """An event envelope (docs/events.md): data is the type's object as JSON
    (for order.* an Order: use order())."""

    id: str = _j("id")
    type: str = _j("type")
    created_at: str = _j("created_at")
    version: str = _j("version")
    data: Dict[str, Any] = _j("data")

    def order(self) -> Order:
        """data as an Order (order.* events)."""
        return from_json(Order, self.data)


class CreateParams(TypedDict, total=False):
    """Optional create parameters (SPEC.md's names), passed as keywords or in extra."""

    description: str
    customerName: str
    customerEmail: str
    customerPhone: str
    fiatpspSystemId: int
    allowedPaymentMethods: str
    lang: str
    return_url: str
    notify_url: str
    clientOrderId: str
