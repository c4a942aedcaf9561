// The client's manners against a scripted loopback server: the same
// Idempotency-Key on every retry of a POST, retries only on what a retry can
// mend, the time-out, typed errors and the User-Agent.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { after, describe, test } from "node:test";
import { ApiError, Client, ConnectionError, VERSION } from "../src/index.js";
import { pkgDir } from "./env.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

type Answer = (res: ServerResponse) => void;

/** A loopback server answering each request with the next scripted answer. */
async function scripted(answers: Answer[]): Promise<{ client: Client; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const answer = answers.shift() ?? json(500, { code: 500, error: "internal_error", msg: "no script left" });
      answer(res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  const client = new Client({
    baseUrl: `http://127.0.0.1:${port}/`,
    appid: "1001",
    apiKey: "k",
    queryKey: "q",
    clientip: "127.0.0.1",
    retryBaseMs: 1,
    retryMaxMs: 20,
    timeoutMs: 2_000,
  });
  return { client, seen };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

const created = json(200, { code: 0, msg: "success", data: { paymentId: "P1", orderId: "P1", idempotent: false } });
const createParams = { amount: "1.00", currency: "CNY", paymentMethod: "wallet_a" };

describe("retries", () => {
  test("a 503, a dropped connection and a 429 are retried with the same Idempotency-Key", async () => {
    const drop: Answer = (res) => res.socket?.destroy();
    const { client, seen } = await scripted([
      json(503, { code: 503, error: "unavailable", msg: "later" }),
      drop,
      json(429, { code: 429, error: "rate_limited", msg: "slow down" }, { "Retry-After": "0" }),
      created,
    ]);
    const c = new Client({ ...opts(client), maxRetries: 3 });
    const got = await c.create(createParams);
    assert.equal(got.paymentId, "P1");
    assert.equal(seen.length, 4);
    const keys = new Set(seen.map((s) => s.headers["idempotency-key"]));
    assert.equal(keys.size, 1, `keys ${[...keys].join(", ")}`);
    assert.match(String([...keys][0]), /^[0-9a-f-]{36}$/);
  });
  test("a key of the caller's is sent as given", async () => {
    const { client, seen } = await scripted([created]);
    await client.create(createParams, { idempotencyKey: "SHOP-42-create" });
    assert.equal(seen[0]?.headers["idempotency-key"], "SHOP-42-create");
  });
  test("two calls get two keys", async () => {
    const { client, seen } = await scripted([created, created]);
    await client.create(createParams);
    await client.create(createParams);
    assert.notEqual(seen[0]?.headers["idempotency-key"], seen[1]?.headers["idempotency-key"]);
  });
  test("a 4xx is not retried and throws its kind and status", async () => {
    const { client, seen } = await scripted([json(401, { code: 401, error: "invalid_sign", msg: "invalid sign" }), created]);
    await assert.rejects(client.create(createParams), (err: unknown) => err instanceof ApiError && err.kind === "invalid_sign" && err.status === 401);
    assert.equal(seen.length, 1);
  });
  test("retries stop after maxRetries and throw the last answer", async () => {
    const down = json(503, { code: 503, error: "unavailable", msg: "down" });
    const { client, seen } = await scripted([down, down, down, down]);
    await assert.rejects(client.order("P1"), (err: unknown) => err instanceof ApiError && err.kind === "unavailable" && err.status === 503);
    assert.equal(seen.length, 3);
  });
  test("a GET carries no Idempotency-Key", async () => {
    const { client, seen } = await scripted([json(200, { code: 0, msg: "success", data: [] })]);
    assert.deepEqual(await client.balance(), []);
    assert.equal(seen[0]?.headers["idempotency-key"], undefined);
    assert.match(seen[0]?.url ?? "", /^\/api\/balance\?appid=1001&key=q$/);
  });
});

describe("answers", () => {
  test("a non-JSON error page is an ApiError with the status's kind", async () => {
    const html: Answer = (res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<h1>bad gateway</h1>");
    };
    const { client } = await scripted([html, html, html]);
    await assert.rejects(client.order("P1"), (err: unknown) => err instanceof ApiError && err.status === 502 && err.kind === "internal_error");
  });
  test("a 200 that is not the success envelope is refused", async () => {
    const { client } = await scripted([json(200, { code: 1, msg: "odd", data: {} })]);
    await assert.rejects(client.order("P1"), (err: unknown) => err instanceof ApiError && err.kind === "invalid_response");
  });
});

describe("time-out", () => {
  // The test's own limit makes a client without a time-out fail here instead of hanging.
  test("an attempt that gets no answer in time throws a ConnectionError marked timedOut", { timeout: 10_000 }, async () => {
    const silent: Answer = () => undefined;
    const { client, seen } = await scripted([silent, silent]);
    const c = new Client({ ...opts(client), timeoutMs: 100, maxRetries: 1 });
    await assert.rejects(c.order("P1"), (err: unknown) => err instanceof ConnectionError && err.timedOut);
    assert.equal(seen.length, 2);
  });
});

describe("requests", () => {
  test("a create is signed JSON with appid, action, clientip and the User-Agent", async () => {
    const { client, seen } = await scripted([created]);
    await client.create(createParams);
    const s = seen[0]!;
    assert.equal(s.method, "POST");
    assert.equal(s.url, "/api/createorder");
    assert.equal(s.headers["user-agent"], `paygate-node/${VERSION}`);
    assert.equal(s.headers["content-type"], "application/json");
    const body = JSON.parse(s.body) as Record<string, string>;
    assert.equal(body.appid, "1001");
    assert.equal(body.action, "createorder");
    assert.equal(body.clientip, "127.0.0.1");
    assert.match(body.sign ?? "", /^[0-9a-f]{32}$/);
  });
  test("the query key never appears in an error's message", async () => {
    const { client } = await scripted([]);
    const c = new Client({ ...opts(client), baseUrl: "http://127.0.0.1:1", maxRetries: 0, queryKey: "secret-query-key" });
    await assert.rejects(c.order("P1"), (err: unknown) => err instanceof ConnectionError && !err.message.includes("secret-query-key"));
  });
  test("VERSION is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(resolve(pkgDir, "package.json"), "utf8")) as { version: string };
    assert.equal(VERSION, pkg.version);
  });
});

// The options a scripted client was made with, to derive another from it.
function opts(c: Client): ConstructorParameters<typeof Client>[0] {
  return (c as unknown as { o: ConstructorParameters<typeof Client>[0] }).o;
}
