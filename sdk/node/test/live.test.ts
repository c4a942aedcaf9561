// Against the real binary (make test-sdk sets GATEWAY_SDK_BASE_URL): every
// call of the client, a real paid webhook received on a loopback server of
// this test's own and verified in both forms, and what the gateway refuses
// arriving as typed errors. Skipped when the tests run alone.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { ApiError, Client, WebhookVerificationError, isRefundWebhook, verifyFormWebhook, verifyHeaders, type Order } from "../src/index.js";
import { live, pkgDir, type Live } from "./env.js";
import { missing, shapes, undeclared, type Shape } from "./shapes.js";

const env = live();

interface Hook {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A loopback receiver answering success; next() waits for the next delivery that matches. */
async function receiver(): Promise<{ url: string; next: (match: (h: Hook) => boolean) => Promise<Hook>; close: () => void }> {
  const got: Hook[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let raw = ""; // latin1 keeps every byte as it came
    req.on("data", (c: Buffer) => (raw += c.toString("latin1")));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.from(raw, "latin1") });
      res.end("success");
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  const port = (server.address() as AddressInfo).port;
  const next = async (match: (h: Hook) => boolean): Promise<Hook> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const i = got.findIndex(match);
      if (i >= 0) return got.splice(i, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no matching webhook within 30 s; received ${got.length}: ${got.map((h) => h.body.toString()).join(" | ")}`);
      await new Promise<void>((ok) => {
        waiters.push(ok);
        setTimeout(ok, 500);
      });
    }
  };
  return { url: `http://127.0.0.1:${port}/hook`, next, close };
}

function fits(obj: object, s: Shape, what: string): void {
  assert.deepEqual(undeclared(obj, s), [], `${what} answers fields the SDK's type lacks`);
  assert.deepEqual(missing(obj, s), [], `${what} lacks required fields`);
}

/** Pays an order in the sandbox driver (form appid + the query key). */
async function sandboxPay(e: Live, id: string): Promise<void> {
  const res = await fetch(`${e.baseUrl}/sandbox/orders/${id}/pay`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ appid: e.appid, key: e.queryKey }).toString(),
  });
  assert.equal(res.status, 200, await res.text());
}

/** Retries read until ok says the projection caught up (listings lag the orders a little). */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function kind(k: string, status: number) {
  return (err: unknown) => err instanceof ApiError && err.kind === k && err.status === status;
}

describe("live gateway", { skip: env ? false : "GATEWAY_SDK_BASE_URL is not set" }, () => {
  const e = env!;
  const run = `node-${Date.now().toString(36)}`;
  const since = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString().replace(".000Z", "Z");
  let client: Client;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let paidId = "";

  before(async () => {
    hooks = await receiver();
    client = new Client({ baseUrl: e.baseUrl, appid: e.appid, apiKey: e.apiKey, queryKey: e.queryKey, clientip: "127.0.0.1", retryBaseMs: 50 });
  });
  // At the suite's level: an after() inside before() would close the receiver as soon as before() ends.
  after(() => hooks.close());

  const create = (ref: string, amount = "100.50") =>
    client.create({ amount, currency: "CNY", paymentMethod: "wallet_a", clientOrderId: `${run}-${ref}`, notify_url: hooks.url, description: "SDK test" });

  test("create, and the same clientOrderId again answers the same order", async () => {
    const first = await create("a");
    fits(first, shapes.CreateOrderData, "create");
    assert.equal(first.idempotent, false);
    assert.equal(first.amount, "100.50");
    const again = await create("a");
    assert.equal(again.paymentId, first.paymentId);
    assert.equal(again.idempotent, true);
    paidId = first.paymentId;
  });

  test("the hosted page URL answers 200 with the page", async () => {
    const url = client.hostedUrl({ amount: "12.30", currency: "CNY", paymentMethod: "wallet_a", clientOrderId: `${run}-hosted` });
    const res = await fetch(url);
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    await res.arrayBuffer();
  });

  test("order answers the order", async () => {
    const o = await client.order(paidId);
    fits(o, shapes.Order, "order");
    assert.equal(o.paymentId, paidId);
    assert.equal(o.clientOrderId, `${run}-a`);
    assert.equal(o.notify_url, hooks.url);
    assert.ok(o.status === 0 || o.status === 1);
  });

  test("orders pages through the listing", async () => {
    const ids = new Set([paidId]);
    for (const ref of ["l1", "l2", "l3"]) ids.add((await create(ref, "1.00")).paymentId);
    let pages = 0;
    const counting = new Client({ baseUrl: e.baseUrl, appid: e.appid, apiKey: e.apiKey, queryKey: e.queryKey, fetch: (i, init) => {
      pages++;
      return fetch(i, init);
    } });
    const seen = await eventually(async () => {
      pages = 0;
      const all: Order[] = [];
      for await (const o of counting.orders({ from: since, limit: 2 })) all.push(o);
      return all;
    }, (all) => [...ids].every((id) => all.some((o) => o.paymentId === id)));
    for (const id of ids) assert.ok(seen.some((o) => o.paymentId === id), `listing lacks ${id}`);
    assert.equal(new Set(seen.map((o) => o.paymentId)).size, seen.length, "an order listed twice");
    assert.ok(pages >= 2, `read ${pages} page(s) of 2 for ${seen.length} orders`);
    for (const o of seen) fits(o, shapes.Order, "listed order");
    const page = await client.ordersPage({ from: since, limit: 2 });
    fits(page, shapes.OrderPage, "orders page");
  });

  test("cancel cancels a pending order, and stays cancelled", async () => {
    const o = await create("cancel", "2.00");
    const c = await client.cancel(o.paymentId);
    fits(c, shapes.Order, "cancel");
    assert.equal(c.status, 4);
    assert.equal(c.status_str, "cancelled");
    assert.equal((await client.cancel(o.paymentId)).status, 4);
  });

  test("a paid order's webhook arrives and verifies in both forms; tampered, stale or headerless it is refused", async () => {
    await sandboxPay(e, paidId);
    const hook = await hooks.next((h) => new URLSearchParams(h.body.toString()).get("paymentId") === paidId);
    const w = verifyFormWebhook(hook.body, e.apiKey);
    assert.ok(!isRefundWebhook(w));
    fits(w, shapes.PaidWebhook, "paid webhook");
    assert.equal(w.status_str, "paid");
    assert.equal(w.amount, "100.50");
    assert.equal(verifyHeaders(hook.body, hook.headers, e.webhookSecret), `evt_paid_${paidId}`);

    const tampered = Buffer.from(hook.body.toString().replace("amount=100.50", "amount=100.51"));
    assert.notDeepEqual(tampered, hook.body);
    assert.throws(() => verifyFormWebhook(tampered, e.apiKey), WebhookVerificationError);
    assert.throws(() => verifyHeaders(tampered, hook.headers, e.webhookSecret), WebhookVerificationError);
    assert.throws(() => verifyHeaders(hook.body, hook.headers, e.webhookSecret, { now: () => Date.now() + 600_000 }), WebhookVerificationError);
    const headerless = { ...hook.headers };
    delete headerless["webhook-signature"];
    assert.throws(() => verifyHeaders(hook.body, headerless, e.webhookSecret), WebhookVerificationError);
    assert.equal((await client.order(paidId)).status, 2);
  });

  test("a paid order cannot be cancelled: 409 conflict", async () => {
    await assert.rejects(client.cancel(paidId), kind("conflict", 409));
  });

  test("refund refunds part of the paid order; its webhook verifies; more than is left is refused", async () => {
    const r = await client.refund({ paymentId: paidId, amount: "30.00", reason: "returned", clientRefundId: `${run}-r1` });
    fits(r, shapes.RefundData, "refund");
    assert.equal(r.status, "succeeded");
    assert.equal(r.refundedAmount, "30.00");
    const again = await client.refund({ paymentId: paidId, amount: "30.00", clientRefundId: `${run}-r1` });
    assert.equal(again.refundId, r.refundId);
    assert.equal(again.idempotent, true);
    await assert.rejects(client.refund({ paymentId: paidId, amount: "70.51" }), kind("refund_exceeds_paid", 409));
    const hook = await hooks.next((h) => new URLSearchParams(h.body.toString()).get("refundId") === r.refundId);
    const w = verifyFormWebhook(hook.body, e.apiKey);
    assert.ok(isRefundWebhook(w));
    fits(w, shapes.RefundWebhook, "refund webhook");
    assert.equal(verifyHeaders(hook.body, hook.headers, e.webhookSecret), `evt_refund_${r.refundId}`);
    const o = await client.order(paidId);
    assert.equal(o.refundedAmount, "30.00");
    assert.equal(o.refunds?.length, 1);
    for (const x of o.refunds ?? []) fits(x, shapes.Refund, "order's refund");
  });

  test("balance answers a balance per currency", async () => {
    const b = await client.balance();
    assert.ok(Array.isArray(b));
    for (const x of b) fits(x, shapes.Balance, "balance");
  });

  test("the README's quick start runs as written", () => {
    const readme = readFileSync(`${pkgDir}/README.md`, "utf8");
    const block = /## Create an order\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, "no quick start block in README.md");
    assert.ok(block.trim().split("\n").length <= 10, "the quick start is longer than ten lines");
    // Only what this machine differs in: the package is this checkout's, the server's public IP is loopback.
    const code = block.replace('"@paygate/node"', JSON.stringify(`${pkgDir}/dist/src/index.js`)).replace('"203.0.113.7"', '"127.0.0.1"');
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], {
      env: { ...process.env, PAYGATE_URL: e.baseUrl, PAYGATE_APPID: e.appid, PAYGATE_API_KEY: e.apiKey, PAYGATE_QUERY_KEY: e.queryKey },
      encoding: "utf8",
    });
    assert.match(out, /^P\S+ http:\/\/\S+\/payment\/P\S+\n$/, out);
  });

  test("refusals arrive as typed errors", async () => {
    await assert.rejects(client.order(`${run}-nope`), kind("order_not_found", 404));
    const badKey = new Client({ baseUrl: e.baseUrl, appid: e.appid, apiKey: e.apiKey + "x", clientip: "127.0.0.1" });
    await assert.rejects(badKey.create({ amount: "1.00", currency: "CNY", paymentMethod: "wallet_a" }), kind("invalid_sign", 401));
    const badQuery = new Client({ baseUrl: e.baseUrl, appid: e.appid, apiKey: e.apiKey, queryKey: "00000000-0000-0000-0000-000000000000" });
    await assert.rejects(badQuery.balance(), (err: unknown) => err instanceof ApiError && err.status === 401);
  });
});
