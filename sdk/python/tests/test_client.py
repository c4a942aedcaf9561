"""The client against a scripted loopback server: retries reuse one
Idempotency-Key, errors are typed, User-Agent names the SDK."""

import json
import socket
import threading
import unittest

import paygate
from tests.fakeserver import Scripted

CREATED = {"code": 0, "msg": "success", "data": {
    "paymentId": "p1", "orderId": "p1", "redirectUrl": "https://pay.example/payment/p1", "qrImageUrl": None,
    "status": 1, "statusString": "ready", "paidWithBalance": False, "idempotent": False, "amount": "100.50",
    "currency": "CNY", "paymentMethod": "wallet_a", "createdAt": "2026-01-02T03:04:05Z", "futureField": 1}}


def err(status, kind):
    return {"code": status, "error": kind, "msg": "no"}


class ClientCase(unittest.TestCase):
    def serve(self, *script):
        s = Scripted(list(script))
        self.addCleanup(s.close)
        c = paygate.Client(s.url, "1001", "api-key", "query-key", clientip="127.0.0.1", backoff=0)
        c.transport.sleep = lambda _: None
        return s, c

    def test_retry_reuses_the_idempotency_key(self):
        s, c = self.serve((503, err(503, "unavailable"), {}), (429, err(429, "rate_limited"), {"Retry-After": "0"}),
                          (200, CREATED, {}))
        o = c.create("100.50", "CNY", "wallet_a", client_order_id="SHOP-42")
        self.assertEqual(o.payment_id, "p1")
        keys = [r["headers"].get("Idempotency-Key") for r in s.seen]
        self.assertEqual(len(keys), 3)
        self.assertTrue(keys[0])
        self.assertEqual(keys, [keys[0]] * 3)

    def test_new_call_new_key(self):
        s, c = self.serve((200, CREATED, {}), (200, CREATED, {}))
        c.create("1", "CNY", "wallet_a")
        c.create("1", "CNY", "wallet_a")
        self.assertNotEqual(s.seen[0]["headers"]["Idempotency-Key"], s.seen[1]["headers"]["Idempotency-Key"])

    def test_given_key_sent(self):
        s, c = self.serve((200, CREATED, {}))
        c.create("1", "CNY", "wallet_a", idempotency_key="mine-1")
        self.assertEqual(s.seen[0]["headers"]["Idempotency-Key"], "mine-1")

    def test_signed_body_and_user_agent(self):
        s, c = self.serve((200, CREATED, {}))
        c.create("100.50", "CNY", "wallet_a", client_order_id="SHOP-42", notify_url="https://shop.example/hook")
        r = s.seen[0]
        self.assertEqual(r["headers"]["User-Agent"], "paygate-python/" + paygate.__version__)
        body = json.loads(r["body"])
        self.assertEqual(body["sign"], paygate.sign(body, "api-key"))
        self.assertEqual((body["amount"], body["clientOrderId"], body["action"]), ("100.50", "SHOP-42", "createorder"))

    def test_errors_typed_and_not_retried(self):
        cases = [
            ("400", 400, "invalid_parameter", paygate.InvalidRequestError),
            ("401", 401, "invalid_sign", paygate.AuthenticationError),
            ("403", 403, "clientip_mismatch", paygate.ForbiddenError),
            ("404", 404, "order_not_found", paygate.NotFoundError),
            ("409", 409, "refund_exceeds_paid", paygate.ConflictError),
            ("422", 422, "refund_not_supported", paygate.InvalidRequestError),
        ]
        for name, status, kind, cls in cases:
            with self.subTest(name):
                s, c = self.serve((status, err(status, kind), {}), (200, CREATED, {}))
                with self.assertRaises(cls) as ctx:
                    c.create("1", "CNY", "wallet_a")
                self.assertEqual((ctx.exception.status, ctx.exception.kind), (status, kind))
                self.assertEqual(len(s.seen), 1)

    def test_gives_up_after_max_retries(self):
        s, c = self.serve(*[(500, err(500, "internal_error"), {})] * 5)
        with self.assertRaises(paygate.ServerError) as ctx:
            c.order("p1")
        self.assertEqual(ctx.exception.kind, "internal_error")
        self.assertEqual(len(s.seen), 3)

    def test_rate_limit_carries_retry_after(self):
        s, c = self.serve(*[(429, err(429, "rate_limited"), {"Retry-After": "2"})] * 3)
        waits = []
        c.transport.sleep = waits.append
        with self.assertRaises(paygate.RateLimitError) as ctx:
            c.order("p1")
        self.assertEqual(ctx.exception.retry_after, 2.0)
        self.assertEqual(waits, [2.0, 2.0])

    def test_not_our_envelope(self):
        s, c = self.serve((502, b"<html>bad gateway</html>", {}), (502, b"x", {}), (502, b"x", {}))
        with self.assertRaises(paygate.ServerError) as ctx:
            c.order("p1")
        self.assertEqual(ctx.exception.kind, "http_502")

    def test_paging_iterator(self):
        def page(n, ids, total):
            orders = [dict(CREATED["data"], paymentId=i, orderId=i, status_str="ready", sandbox=True) for i in ids]
            return (200, {"code": 0, "msg": "success", "data": {"page": n, "limit": 2, "total": total,
                                                                 "orders": orders}}, {})
        s, c = self.serve(page(1, ["a", "b"], 5), page(2, ["c", "d"], 5), page(3, ["e"], 5))
        self.assertEqual([o.payment_id for o in c.orders(limit=2)], ["a", "b", "c", "d", "e"])
        self.assertIn("page=3", s.seen[2]["path"])
        self.assertIn("key=query-key", s.seen[0]["path"])

    def test_missing_credentials_refused_locally(self):
        c = paygate.Client("http://127.0.0.1:9", "1001", clientip="127.0.0.1")
        with self.assertRaises(ValueError):
            c.create("1", "CNY", "wallet_a")
        with self.assertRaises(ValueError):
            c.order("p1")
        with self.assertRaises(TypeError):
            paygate.Client("http://127.0.0.1:9", "1", "k", clientip="1.2.3.4").create("1", "CNY", "x", colour="red")


class Timeouts(unittest.TestCase):
    def test_silent_server_is_a_transport_error(self):
        # A listener that accepts and never answers: the call must end.
        ln = socket.socket()
        ln.bind(("127.0.0.1", 0))
        ln.listen(8)
        self.addCleanup(ln.close)
        held = []
        stop = threading.Event()

        def accept():
            ln.settimeout(0.1)
            while not stop.is_set():
                try:
                    held.append(ln.accept()[0])
                except OSError:
                    pass
        t = threading.Thread(target=accept, daemon=True)
        t.start()
        self.addCleanup(stop.set)
        c = paygate.Client("http://127.0.0.1:%d" % ln.getsockname()[1], "1", "k", "q", timeout=0.2, max_retries=1)
        c.transport.sleep = lambda _: None
        with self.assertRaises(paygate.TransportError):
            c.order("p1")
        for s in held:
            s.close()


if __name__ == "__main__":
    unittest.main()
