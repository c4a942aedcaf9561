// Both webhook forms, verified offline: what is sent as the gateway sends it
// passes; a tampered body, a stale or missing header, a wrong secret fail.

import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, test } from "node:test";
import { WebhookVerificationError, constructEvent, isRefundWebhook, sign, verifyFormWebhook, verifyHeaders, type WebhookFailure } from "../src/index.js";

const apiKey = "k3y_5ecret_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
const oldSecret = "whsec_" + Buffer.from("fedcba9876543210fedcba9876543210").toString("base64");
const now = 1_767_323_105_000;

/** A paid callback's form body, signed as the dispatcher signs it. */
export function paidBody(fields: Record<string, string>, key: string): string {
  return new URLSearchParams({ ...fields, sign: sign(fields, key), sign_type: "MD5" }).toString();
}

/** The Standard Webhooks headers for body, one v1 entry per secret. */
export function signHeaders(id: string, ts: number, body: string, secrets: string[]): Record<string, string> {
  const sigs = secrets.map((s) => {
    const key = Buffer.from(s.replace(/^whsec_/, ""), "base64");
    return "v1," + createHmac("sha256", new Uint8Array(key)).update(`${id}.${ts}.${body}`).digest("base64");
  });
  return { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": sigs.join(" ") };
}

const paid = {
  paymentId: "P20261121223320ab12cd",
  amount: "100.00",
  currency: "CNY",
  status: "2",
  status_str: "paid",
  paymentMethod: "wallet_a",
  completedTime: "2026-11-21T22:35:01Z",
  createdAt: "2026-11-21T22:33:20Z",
  clientOrderId: "A-77",
};
const body = paidBody(paid, apiKey);
const ts = now / 1000;
const headers = signHeaders("evt_paid_" + paid.paymentId, ts, body, [secret]);
const clock = { now: () => now };

function refused(reason: WebhookFailure, fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => err instanceof WebhookVerificationError && err.reason === reason);
}

describe("SPEC.md's form callback (MD5 with the API key)", () => {
  test("valid: the raw body, URLSearchParams and parsed fields all verify", () => {
    assert.equal(verifyFormWebhook(body, apiKey).paymentId, paid.paymentId);
    assert.equal(verifyFormWebhook(Buffer.from(body), apiKey).amount, "100.00");
    const w = verifyFormWebhook(new URLSearchParams(body), apiKey);
    assert.ok(!isRefundWebhook(w) && w.status_str === "paid");
    assert.equal(verifyFormWebhook(Object.fromEntries(new URLSearchParams(body)), apiKey).currency, "CNY");
  });
  test("tampered amount is refused", () => {
    refused("invalid_sign", () => verifyFormWebhook(body.replace("amount=100.00", "amount=1000.00"), apiKey));
  });
  test("another API key is refused", () => {
    refused("invalid_sign", () => verifyFormWebhook(body, apiKey + "x"));
  });
  test("missing sign is refused", () => {
    refused("missing_sign", () => verifyFormWebhook(body.replace(/&?sign=[0-9a-f]+/, ""), apiKey));
  });
  test("a field sent twice is refused", () => {
    refused("invalid_body", () => verifyFormWebhook(body + "&amount=1000.00", apiKey));
  });
});

describe("Standard Webhooks headers (HMAC-SHA256 with the whsec_ secret)", () => {
  test("valid: answers the webhook-id, with node:http or fetch headers", () => {
    assert.equal(verifyHeaders(body, headers, secret, clock), "evt_paid_" + paid.paymentId);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.equal(verifyHeaders(Buffer.from(body), upper, secret, clock), "evt_paid_" + paid.paymentId);
    assert.equal(verifyHeaders(body, new Headers(headers), secret, clock), "evt_paid_" + paid.paymentId);
  });
  test("tampered amount is refused", () => {
    refused("invalid_signature", () => verifyHeaders(body.replace("amount=100.00", "amount=1000.00"), headers, secret, clock));
  });
  test("another webhook-id is refused", () => {
    refused("invalid_signature", () => verifyHeaders(body, { ...headers, "webhook-id": "evt_paid_other" }, secret, clock));
  });
  test("another secret is refused", () => {
    refused("invalid_signature", () => verifyHeaders(body, headers, oldSecret, clock));
  });
  for (const [name, offset] of [["stale", -301_000], ["future", 301_000]] as const) {
    test(`${name} timestamp (5 minutes and 1 second away) is refused`, () => {
      refused("stale_timestamp", () => verifyHeaders(body, headers, secret, { now: () => now - offset }));
    });
  }
  test("a timestamp just within the tolerance passes", () => {
    assert.ok(verifyHeaders(body, headers, secret, { now: () => now + 300_000 }));
  });
  test("a timestamp that is not unix seconds is refused", () => {
    refused("invalid_timestamp", () => verifyHeaders(body, { ...headers, "webhook-timestamp": "1e9" }, secret, clock));
  });
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    test(`missing ${name} is refused`, () => {
      const h: Record<string, string> = { ...headers };
      delete h[name];
      refused("missing_header", () => verifyHeaders(body, h, secret, clock));
    });
  }
  test("rotated: two signatures, either secret verifies; a third does not", () => {
    const both = signHeaders("evt_paid_" + paid.paymentId, ts, body, [secret, oldSecret]);
    assert.ok(verifyHeaders(body, both, secret, clock));
    assert.ok(verifyHeaders(body, both, oldSecret, clock));
    const third = "whsec_" + Buffer.from("another secret entirely, 32 bytes").toString("base64");
    refused("invalid_signature", () => verifyHeaders(body, both, third, clock));
  });
  test("an entry of another version is not taken for v1", () => {
    const sig = headers["webhook-signature"]!.replace(/^v1,/, "v2,");
    refused("invalid_signature", () => verifyHeaders(body, { ...headers, "webhook-signature": sig }, secret, clock));
  });
});

describe("event envelope", () => {
  const ev = JSON.stringify({ id: "evt_1", type: "order.paid", created_at: "2026-11-28T09:00:00Z", version: "2026-11-28", data: { paymentId: "P1" } });
  test("a verified envelope is parsed", () => {
    const got = constructEvent<{ paymentId: string }>(ev, signHeaders("evt_1", ts, ev, [secret]), secret, clock);
    assert.equal(got.type, "order.paid");
    assert.equal(got.data.paymentId, "P1");
  });
  test("an envelope whose id is not the webhook-id is refused", () => {
    refused("invalid_body", () => constructEvent(ev, signHeaders("evt_2", ts, ev, [secret]), secret, clock));
  });
  test("a body that is not an envelope is refused", () => {
    const bad = JSON.stringify({ id: "evt_1", type: "order.paid" });
    refused("invalid_body", () => constructEvent(bad, signHeaders("evt_1", ts, bad, [secret]), secret, clock));
  });
});
