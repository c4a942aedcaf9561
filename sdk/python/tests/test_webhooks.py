"""Both webhook forms: valid ones pass; tampered, stale, unsigned ones are refused."""

import base64
import json
import unittest
from urllib.parse import urlencode

import paygate
from paygate import webhooks

API_KEY = "k3y_5ecret_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
OLD_SECRET = "whsec_" + base64.b64encode(b"an older secret, still in grace").decode()
NOW = 1767323105


def paid_body(**change):
    params = {
        "paymentId": "0a1b2c3d4e5f6a7b8c9d", "amount": "100.50", "currency": "CNY", "status": "2",
        "status_str": "paid", "paymentMethod": "wallet_a", "createdAt": "2026-01-02T03:04:05Z",
        "completedTime": "2026-01-02T03:05:00Z", "clientOrderId": "SHOP-42",
    }
    params["sign"] = paygate.sign(params, API_KEY)
    params["sign_type"] = "MD5"
    params.update(change)
    return urlencode(params)


def headers_for(body, secrets=(SECRET,), stamp=NOW, msg_id="evt_paid_0a1b2c3d4e5f6a7b8c9d"):
    sig = " ".join(webhooks.sign_headers(s, msg_id, stamp, body) for s in secrets)
    return {"Webhook-Id": msg_id, "Webhook-Timestamp": str(stamp), "Webhook-Signature": sig}


class PaidWebhook(unittest.TestCase):
    def test_valid_both_forms(self):
        body = paid_body()
        w = paygate.verify_paid(body.encode(), API_KEY, headers_for(body), SECRET, now=NOW)
        self.assertEqual((w.payment_id, w.amount, w.status_str, w.client_order_id),
                         ("0a1b2c3d4e5f6a7b8c9d", "100.50", "paid", "SHOP-42"))

    def test_valid_md5_form_only(self):
        w = paygate.verify_paid(paid_body(), API_KEY)
        self.assertEqual(w.currency, "CNY")

    def test_refused(self):
        good = paid_body()
        tampered = paid_body(amount="1000.50")
        cases = [
            # name, body, headers, secret, the reason it must be refused for
            ("tampered amount, MD5 form", tampered, None, None, "sign does not match"),
            ("tampered amount under the original headers", tampered, headers_for(good), SECRET,
             "no webhook-signature matches"),
            ("wrong API key", good, None, None, "sign does not match"),
            ("sign missing", urlencode({k: v for k, v in _parse(good).items() if k != "sign"}), None, None,
             "sign does not match"),
            ("stale timestamp", good, headers_for(good, stamp=NOW - 301), SECRET, "too far"),
            ("timestamp from the future", good, headers_for(good, stamp=NOW + 301), SECRET, "too far"),
            ("timestamp not a number", good, dict(headers_for(good), **{"Webhook-Timestamp": "-1"}), SECRET,
             "not unix seconds"),
            ("missing webhook-signature", good, _without(headers_for(good), "Webhook-Signature"), SECRET,
             "missing header webhook-signature"),
            ("missing webhook-timestamp", good, _without(headers_for(good), "Webhook-Timestamp"), SECRET,
             "missing header webhook-timestamp"),
            ("missing webhook-id", good, _without(headers_for(good), "Webhook-Id"), SECRET,
             "missing header webhook-id"),
            ("no headers at all", good, {}, SECRET, "missing header"),
            ("signed by another secret", good, headers_for(good, secrets=(OLD_SECRET,)), SECRET,
             "no webhook-signature matches"),
            ("another id under the same signature", good,
             dict(headers_for(good), **{"Webhook-Id": "evt_paid_other"}), SECRET, "no webhook-signature matches"),
            ("repeated amount (parameter splitting)", good + "&amount=1.00", None, None, "appears twice"),
        ]
        for name, body, headers, secret, reason in cases:
            with self.subTest(name):
                key = API_KEY + "-other" if name == "wrong API key" else API_KEY
                with self.assertRaisesRegex(paygate.WebhookVerificationError, reason):
                    paygate.verify_paid(body, key, headers, secret, now=NOW)

    def test_rotated_second_signature_accepted(self):
        body = paid_body()
        # During a rotation the gateway signs with both secrets; a receiver
        # holding either one accepts.
        h = headers_for(body, secrets=(OLD_SECRET, SECRET))
        self.assertEqual(webhooks.verify_headers(body, h, SECRET, now=NOW), "evt_paid_0a1b2c3d4e5f6a7b8c9d")
        self.assertEqual(webhooks.verify_headers(body, h, OLD_SECRET, now=NOW), "evt_paid_0a1b2c3d4e5f6a7b8c9d")

    def test_timestamp_at_the_edge_accepted(self):
        body = paid_body()
        webhooks.verify_headers(body, headers_for(body, stamp=NOW - 300), SECRET, now=NOW)


class Events(unittest.TestCase):
    def envelope(self, **change):
        doc = {"id": "evt_1", "type": "order.paid", "created_at": "2026-01-02T03:05:00Z", "version": "2026-11-28",
               "data": {"paymentId": "p1", "orderId": "p1", "status": 2, "status_str": "paid", "amount": "1.00",
                        "currency": "CNY", "paymentMethod": "wallet_a", "createdAt": "2026-01-02T03:04:05Z",
                        "qrImageUrl": None, "paidWithBalance": False, "sandbox": True}}
        doc.update(change)
        return json.dumps(doc)

    def test_valid(self):
        body = self.envelope()
        e = paygate.parse_event(body.encode(), headers_for(body, msg_id="evt_1"), SECRET, now=NOW)
        self.assertEqual((e.id, e.type, e.version), ("evt_1", "order.paid", "2026-11-28"))
        self.assertEqual(e.order().status, 2)

    def test_refused(self):
        good = self.envelope()
        cases = [
            ("tampered data", self.envelope(data={"paymentId": "p2"}), headers_for(good, msg_id="evt_1"),
             "no webhook-signature matches"),
            ("envelope id is not the webhook-id", self.envelope(id="evt_2"),
             headers_for(self.envelope(id="evt_2"), msg_id="evt_1"), "not the webhook-id"),
            ("not an envelope", "[]", headers_for("[]", msg_id="evt_1"), "not an event envelope"),
            ("stale", good, headers_for(good, msg_id="evt_1", stamp=NOW - 1000), "too far"),
        ]
        for name, body, headers, reason in cases:
            with self.subTest(name):
                with self.assertRaisesRegex(paygate.WebhookVerificationError, reason):
                    paygate.parse_event(body, headers, SECRET, now=NOW)


def _parse(body):
    return webhooks.parse_form(body)


def _without(headers, name):
    return {k: v for k, v in headers.items() if k != name}


if __name__ == "__main__":
    unittest.main()
