"""The SDK against the real gateway (make test-sdk sets GATEWAY_SDK_*):
create, hosted page, query, list, cancel, pay in the sandbox, a real paid
webhook verified in both forms, refund, balance. Skipped without
GATEWAY_SDK_BASE_URL."""

import os
import queue
import threading
import time
import unittest
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import paygate
from paygate import webhooks

BASE = os.environ.get("GATEWAY_SDK_BASE_URL", "")
WAIT = 30.0  # seconds to wait for something asynchronous to happen


def until(fetch, ok, what):
    """fetch() again until ok(value); fails after WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        v = fetch()
        if ok(v):
            return v
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting for " + what)
        time.sleep(0.2)


class Receiver:
    """A loopback webhook receiver of the test's own: records each POST,
    answers success."""

    def __init__(self):
        self.got = queue.Queue()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.got.put((self.path, dict(self.headers.items()), body))
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"success")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def next_for(self, path):
        deadline = time.monotonic() + WAIT
        while True:
            p, headers, body = self.got.get(timeout=max(0.1, deadline - time.monotonic()))
            if p == path:
                return headers, body

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@unittest.skipUnless(BASE, "GATEWAY_SDK_BASE_URL unset: no gateway to talk to")
class Live(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        env = os.environ
        cls.api_key, cls.query_key = env["GATEWAY_SDK_API_KEY"], env["GATEWAY_SDK_QUERY_KEY"]
        cls.secret = env["GATEWAY_SDK_WEBHOOK_SECRET"]
        cls.client = paygate.Client(BASE, env["GATEWAY_SDK_APPID"], cls.api_key, cls.query_key,
                                    clientip="127.0.0.1")
        cls.receiver = Receiver()

    @classmethod
    def tearDownClass(cls):
        cls.receiver.close()

    def ref(self):
        return "py-" + uuid.uuid4().hex[:16]

    def pay(self, payment_id):
        form = urlencode({"appid": self.client.appid, "key": self.query_key}).encode()
        req = urllib.request.Request(BASE + "/sandbox/orders/" + payment_id + "/pay", data=form, method="POST")
        with urllib.request.urlopen(req, timeout=15) as r:
            self.assertEqual(r.status, 200)

    def test_create_query_and_idempotent_replay(self):
        ref = self.ref()
        o = self.client.create("100.50", "CNY", "wallet_a", client_order_id=ref, description="SDK test")
        self.assertEqual((o.amount, o.currency, o.client_order_id, o.idempotent), ("100.50", "CNY", ref, False))
        self.assertTrue(o.pay_url(BASE))
        again = self.client.create("100.50", "CNY", "wallet_a", client_order_id=ref, description="SDK test")
        self.assertEqual((again.payment_id, again.idempotent), (o.payment_id, True))
        q = self.client.order(o.payment_id)
        self.assertEqual((q.payment_id, q.status_str, q.description, q.sandbox), (o.payment_id, o.status_string,
                                                                                 "SDK test", True))

    def test_readme_quick_start_as_written(self):
        with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md"),
                  encoding="utf-8") as f:
            readme = f.read()
        section = readme.split("## Create an order in ten lines", 1)[1]
        code = section.split("```python\n", 1)[1].split("```", 1)[0]
        self.assertLessEqual(len(code.strip().splitlines()), 10)
        env = {"GATEWAY_URL": BASE, "GATEWAY_APPID": self.client.appid, "GATEWAY_API_KEY": self.api_key,
               "GATEWAY_QUERY_KEY": self.query_key}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            # Only the documentation address becomes the loopback one the gateway sees.
            scope = {}
            exec(compile(code.replace("203.0.113.7", "127.0.0.1"), "README.md", "exec"), scope)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.assertEqual(scope["order"].client_order_id, "SHOP-42")

    def test_errors_are_typed(self):
        with self.assertRaises(paygate.NotFoundError) as ctx:
            self.client.order("0000000000000000000000")
        self.assertEqual((ctx.exception.status, ctx.exception.kind), (404, "order_not_found"))
        wrong = paygate.Client(BASE, self.client.appid, self.api_key + "x", clientip="127.0.0.1")
        with self.assertRaises(paygate.AuthenticationError) as ctx:
            wrong.create("1", "CNY", "wallet_a")
        self.assertEqual(ctx.exception.kind, "invalid_sign")
        elsewhere = paygate.Client(BASE, self.client.appid, self.api_key, clientip="203.0.113.9")
        with self.assertRaises(paygate.ForbiddenError) as ctx:
            elsewhere.create("1", "CNY", "wallet_a")
        self.assertEqual(ctx.exception.kind, "clientip_mismatch")

    def test_hosted_url_answers_200(self):
        url = self.client.hosted_url("12.30", "CNY", "wallet_a", client_order_id=self.ref())
        with urllib.request.urlopen(url, timeout=15) as r:
            self.assertEqual(r.status, 200)
            self.assertIn("text/html", r.headers.get("Content-Type", ""))

    def test_list_pages(self):
        try:
            self.client.orders_page(1, 1)
        except paygate.ServerError as e:
            if e.kind != "unavailable":
                raise
            # The list is read from ClickHouse: a gateway whose tables were
            # never made (no `gateway migrate`) answers 503 unavailable.
            self.skipTest("order listing unavailable (gateway migrate not run): " + e.message)
        mine = {self.client.create("1.00", "CNY", "wallet_a", client_order_id=self.ref()).payment_id
                for _ in range(3)}

        def listed():
            return [o.payment_id for o in self.client.orders(limit=2)]
        ids = until(listed, lambda ids: mine <= set(ids), "the new orders in the list")
        self.assertEqual(len(ids), len(set(ids)), "a page repeated an order")
        first = self.client.orders_page(1, 2)
        self.assertEqual((first.page, first.limit, len(first.orders)), (1, 2, 2))
        self.assertGreaterEqual(first.total, 3)

    def test_cancel(self):
        o = self.client.create("2.00", "CNY", "wallet_a", client_order_id=self.ref())
        c = self.client.cancel(o.payment_id)
        self.assertEqual((c.payment_id, c.status, c.status_str), (o.payment_id, paygate.types.CANCELLED, "cancelled"))
        self.assertEqual(self.client.order(o.payment_id).status_str, "cancelled")

    def test_paid_webhook_refund_balance(self):
        path = "/hook/" + uuid.uuid4().hex
        o = self.client.create("100.00", "CNY", "wallet_a", client_order_id=self.ref(),
                               notify_url=self.receiver.url + path)
        self.pay(o.payment_id)
        headers, body = self.receiver.next_for(path)

        # Both forms verify on the real delivery.
        w = paygate.verify_paid(body, self.api_key, headers, self.secret)
        self.assertEqual((w.payment_id, w.amount, w.status_str), (o.payment_id, "100.00", "paid"))
        self.assertEqual(webhooks.verify_headers(body, headers, self.secret), "evt_paid_" + o.payment_id)

        # The same delivery, altered, is refused.
        tampered = body.replace(b"amount=100.00", b"amount=900.00")
        self.assertNotEqual(tampered, body)
        refusals = [
            ("tampered amount", "no webhook-signature matches",
             lambda: paygate.verify_paid(tampered, self.api_key, headers, self.secret)),
            ("tampered amount, MD5 form only", "sign does not match",
             lambda: paygate.verify_paid(tampered, self.api_key)),
            ("stale timestamp", "too far", lambda: paygate.verify_paid(body, self.api_key, headers, self.secret,
                                                                       now=time.time() + 3600)),
            ("missing webhook-signature", "missing header webhook-signature", lambda: paygate.verify_paid(
                body, self.api_key, {k: v for k, v in headers.items() if k.lower() != "webhook-signature"},
                self.secret)),
        ]
        for name, reason, call in refusals:
            with self.subTest(name):
                with self.assertRaisesRegex(paygate.WebhookVerificationError, reason):
                    call()

        self.assertEqual(self.client.order(o.payment_id).status_str, "paid")
        r = self.client.refund(o.payment_id, "30.00", reason="damaged", client_refund_id="r1")
        self.assertEqual((r.payment_id, r.amount, r.client_refund_id), (o.payment_id, "30.00", "r1"))
        self.assertIn(r.status, ("pending", "succeeded"))
        again = self.client.refund(o.payment_id, "30.00", client_refund_id="r1")
        self.assertEqual((again.refund_id, again.idempotent), (r.refund_id, True))
        with self.assertRaises(paygate.ConflictError) as ctx:
            self.client.refund(o.payment_id, "80.00")
        self.assertEqual(ctx.exception.kind, "refund_exceeds_paid")
        q = self.client.order(o.payment_id)
        self.assertEqual([x.refund_id for x in q.refunds or []], [r.refund_id])

        balances = until(self.client.balance, lambda bs: any(b.currency == "CNY" for b in bs), "a CNY balance")
        cny = [b for b in balances if b.currency == "CNY"][0]
        self.assertRegex(cny.total, r"^-?[0-9]+\.[0-9]{2}$")


if __name__ == "__main__":
    unittest.main()
