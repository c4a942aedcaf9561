"""The merchant's client: signed create, cancel and refund (API key), order
queries and balances (query key), the hosted-page URL builder."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional
from urllib.parse import urlencode

from . import signing
from ._http import USER_AGENT, RetryPolicy, Transport
from .types import Balance, CreatedOrder, Order, OrderPage, RefundResult, from_json


# keyword -> SPEC.md's parameter name, for the optional create parameters.
_CREATE_OPTIONAL = {
    "client_order_id": "clientOrderId",
    "description": "description",
    "notify_url": "notify_url",
    "return_url": "return_url",
    "customer_name": "customerName",
    "customer_email": "customerEmail",
    "customer_phone": "customerPhone",
    "allowed_payment_methods": "allowedPaymentMethods",
    "lang": "lang",
    "fiatpsp_system_id": "fiatpspSystemId",
}


class Client:
    """A merchant's client of one gateway.

    api_key signs create, cancel and refund and verifies webhooks; query_key
    reads orders and balances; clientip is the public address the gateway
    sees this server's requests come from (SPEC.md: it must match).
    """

    def __init__(
        self,
        base_url: str,
        appid: str,
        api_key: Optional[str] = None,
        query_key: Optional[str] = None,
        *,
        clientip: Optional[str] = None,
        timeout: float = 15.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        user_agent: Optional[str] = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) address")
        self.base_url = base_url.rstrip("/")
        self.appid = appid
        self.api_key = api_key
        self.query_key = query_key
        self.clientip = clientip
        ua = USER_AGENT if user_agent is None else USER_AGENT + " " + user_agent
        self.transport = Transport(timeout, RetryPolicy(max_retries, backoff), ua)

    # Signed calls (API key).

    def create_params(self, amount: Any, currency: str, payment_method: str, *,
                      clientip: Optional[str] = None, extra: Optional[Mapping[str, Any]] = None,
                      **optional: Any) -> Dict[str, str]:
        """The signed parameters of a create, as sent by create and hosted_url."""
        params: Dict[str, Any] = {
            "appid": self.appid,
            "clientip": clientip or self.clientip,
            "action": "createorder",
            "amount": amount,
            "currency": currency,
            "paymentMethod": payment_method,
        }
        if params["clientip"] is None:
            raise ValueError("clientip is required (Client(clientip=...) or create(clientip=...))")
        for kw, value in optional.items():
            if kw not in _CREATE_OPTIONAL:
                raise TypeError("unknown create parameter %r" % kw)
            params[_CREATE_OPTIONAL[kw]] = value
        params.update(extra or {})
        return self._signed(params)

    def create(self, amount: Any, currency: str, payment_method: str, *,
               clientip: Optional[str] = None, extra: Optional[Mapping[str, Any]] = None,
               idempotency_key: Optional[str] = None, **optional: Any) -> CreatedOrder:
        """POST /api/createorder. amount is a str, int or Decimal, signed as
        written; optional: client_order_id, description, notify_url,
        return_url, customer_name/email/phone, allowed_payment_methods, lang,
        fiatpsp_system_id (extra: any other SPEC.md name, ext_*)."""
        params = self.create_params(amount, currency, payment_method, clientip=clientip, extra=extra, **optional)
        data = self.transport.call("POST", self.base_url + "/api/createorder", params, idempotency_key)
        return from_json(CreatedOrder, data)

    def hosted_url(self, amount: Any, currency: str, payment_method: str, *,
                   clientip: Optional[str] = None, extra: Optional[Mapping[str, Any]] = None,
                   **optional: Any) -> str:
        """The GET /api/createorder address of the hosted payment page (its
        clientip must be the address of whoever opens it)."""
        params = self.create_params(amount, currency, payment_method, clientip=clientip, extra=extra, **optional)
        return self.base_url + "/api/createorder?" + urlencode(params)

    def cancel(self, payment_id: str, *, idempotency_key: Optional[str] = None) -> Order:
        """POST /api/order/cancel: a pending or ready order becomes cancelled."""
        params = self._signed({"appid": self.appid, "action": "cancel", "paymentId": payment_id})
        data = self.transport.call("POST", self.base_url + "/api/order/cancel", params, idempotency_key)
        return from_json(Order, data)

    def refund(self, payment_id: str, amount: Any, *, reason: Optional[str] = None,
               client_refund_id: Optional[str] = None, idempotency_key: Optional[str] = None) -> RefundResult:
        """POST /api/order/refund, full or partial."""
        params = self._signed({"appid": self.appid, "action": "refund", "paymentId": payment_id,
                               "amount": amount, "reason": reason, "clientRefundId": client_refund_id})
        data = self.transport.call("POST", self.base_url + "/api/order/refund", params, idempotency_key)
        return from_json(RefundResult, data)

    # Queries (query key).

    def order(self, payment_id: str) -> Order:
        """GET /api/order?action=order."""
        return from_json(Order, self._query("/api/order", {"action": "order", "paymentId": payment_id}))

    def orders_page(self, page: int = 1, limit: int = 10, *, status: Optional[str] = None,
                    client_order_id: Optional[str] = None) -> OrderPage:
        """One page of GET /api/order?action=orders, newest first."""
        q = {"action": "orders", "page": page, "limit": limit, "status": status, "clientOrderId": client_order_id}
        return from_json(OrderPage, self._query("/api/order", q))

    def orders(self, limit: int = 50, *, status: Optional[str] = None,
               client_order_id: Optional[str] = None) -> Iterator[Order]:
        """Every matching order, newest first, fetched limit a page."""
        page = 1
        while True:
            p = self.orders_page(page, limit, status=status, client_order_id=client_order_id)
            yield from p.orders
            if not p.orders or page * p.limit >= p.total:
                return
            page += 1

    def balance(self) -> List[Balance]:
        """GET /api/balance: the balances per currency."""
        data = self._query("/api/balance", {})
        if not isinstance(data, list):
            raise ValueError("balance: expected a list")
        return [from_json(Balance, b) for b in data]

    # Helpers.

    def _signed(self, params: Dict[str, Any]) -> Dict[str, str]:
        if not self.api_key:
            raise ValueError("this call is signed: the Client needs api_key")
        out = {k: t for k, t in ((k, signing.param_value(v)) for k, v in params.items()) if t is not None}
        out["sign"] = signing.sign(out, self.api_key)
        out["sign_type"] = "MD5"
        return out

    def _query(self, path: str, params: Mapping[str, Any]) -> Any:
        if not self.query_key:
            raise ValueError("queries need the Client's query_key")
        q = {"appid": self.appid, "key": self.query_key}
        q.update({k: str(v) for k, v in params.items() if v is not None})
        return self.transport.call("GET", self.base_url + path + "?" + urlencode(q))
