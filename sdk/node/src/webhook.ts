// Verifying what the gateway sends: SPEC.md's form callback (MD5 with the
// API key) and the Standard Webhooks headers (HMAC-SHA256 with the whsec_
// secret) that the paid and refund callbacks and every endpoint event carry.
// Both compare in constant time; both want the raw body, before any parser.

import { createHmac, timingSafeEqual } from "node:crypto";
import { u8, utf8 } from "./bytes.js";
import { WebhookVerificationError } from "./errors.js";
import { verifySign, type Params } from "./sign.js";
import type { Event, PaidWebhook, RefundWebhook } from "./types.js";

/** Five minutes: a timestamp further from the receiver's clock is refused (replays). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const HEADER_ID = "webhook-id";
export const HEADER_TIMESTAMP = "webhook-timestamp";
export const HEADER_SIGNATURE = "webhook-signature";

/** Headers as node:http (IncomingMessage.headers), fetch (Headers) or a plain object give them. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

/** The body exactly as received: Express's express.raw() gives a Buffer. */
export type RawBody = string | Uint8Array | Buffer;

/** Either callback SPEC.md's form sends to notify_url; a refund's carries event=refund. */
export type FormWebhook = PaidWebhook | RefundWebhook;

/** Whether a verified form callback is a refund's (else it is the paid-order callback). */
export function isRefundWebhook(w: FormWebhook): w is RefundWebhook {
  return (w as { event?: unknown }).event === "refund";
}

export interface VerifyHeadersOptions {
  /** Seconds a timestamp may be from now; default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock (for tests); default Date.now(). */
  now?: () => number;
}

/**
 * Verifies SPEC.md's form callback (paid or refund) with the API key and
 * returns its fields. body is the raw x-www-form-urlencoded body, or the
 * fields a framework already parsed.
 */
export function verifyFormWebhook(body: RawBody | URLSearchParams | Record<string, string>, apiKey: string): FormWebhook {
  const fields = formFields(body);
  const got = fields.sign;
  if (!got) throw new WebhookVerificationError("missing_sign", "the callback carries no sign");
  if (!verifySign(fields as Params, apiKey, got)) {
    throw new WebhookVerificationError("invalid_sign", "the callback's sign does not match its fields");
  }
  return fields as unknown as FormWebhook;
}

/**
 * Verifies the webhook-id, webhook-timestamp and webhook-signature headers
 * of rawBody with the whsec_ secret: the timestamp within the tolerance and
 * any one of the space-separated v1 signatures matching (two during a
 * secret's rotation). Returns the webhook-id, to deduplicate on.
 */
export function verifyHeaders(rawBody: RawBody, headers: HeaderSource, secret: string, opts: VerifyHeadersOptions = {}): string {
  const id = header(headers, HEADER_ID);
  const ts = header(headers, HEADER_TIMESTAMP);
  const sigs = header(headers, HEADER_SIGNATURE);
  if (!id || !ts || !sigs) throw new WebhookVerificationError("missing_header", "a webhook-id, webhook-timestamp or webhook-signature header is missing");
  if (!/^[0-9]{1,15}$/.test(ts)) throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not unix seconds");
  const now = Math.floor((opts.now ?? Date.now)() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(ts)) > tolerance) {
    throw new WebhookVerificationError("stale_timestamp", "webhook-timestamp is too far from this clock");
  }
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${id}.${ts}.`, "utf8");
  mac.update(typeof rawBody === "string" ? utf8(rawBody) : u8(rawBody));
  const want = u8(mac.digest());
  let ok = false;
  for (const entry of sigs.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const have = u8(Buffer.from(entry.slice(comma + 1), "base64"));
    // Every entry is compared, so the time taken does not say which matched.
    if (have.length === want.length && timingSafeEqual(have, want)) ok = true;
  }
  if (!ok) throw new WebhookVerificationError("invalid_signature", "no webhook-signature entry matches the body");
  return id;
}

/** Verifies an endpoint event's headers, then parses its envelope {id,type,created_at,version,data}. */
export function constructEvent<T = unknown>(rawBody: RawBody, headers: HeaderSource, secret: string, opts: VerifyHeadersOptions = {}): Event<T> {
  const id = verifyHeaders(rawBody, headers, secret, opts);
  let ev: unknown;
  try {
    ev = JSON.parse(text(rawBody));
  } catch {
    throw new WebhookVerificationError("invalid_body", "the event body is not JSON");
  }
  if (!isEnvelope(ev) || ev.id !== id) {
    throw new WebhookVerificationError("invalid_body", "the body is not an event envelope of this webhook-id");
  }
  return ev as Event<T>;
}

/** The HMAC key a whsec_ secret stands for: the bytes its base64 encodes. */
function secretKey(secret: string): Uint8Array {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const key = Buffer.from(b64, "base64");
  if (key.length === 0) throw new WebhookVerificationError("invalid_secret", "the webhook secret is not whsec_ and base64");
  return u8(key);
}

function header(h: HeaderSource, name: string): string | undefined {
  if (typeof (h as { get?: unknown }).get === "function") {
    return (h as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const rec = h as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined) {
    const k = Object.keys(rec).find((k) => k.toLowerCase() === name);
    v = k === undefined ? undefined : rec[k];
  }
  return Array.isArray(v) ? v.join(" ") : v;
}

function formFields(body: RawBody | URLSearchParams | Record<string, string>): Record<string, string> {
  if (typeof body === "string" || Buffer.isBuffer(body) || body instanceof Uint8Array) {
    return uniqueFields(new URLSearchParams(text(body)));
  }
  if (body instanceof URLSearchParams) return uniqueFields(body);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== "string") throw new WebhookVerificationError("invalid_body", `field ${k} is not a string`);
    out[k] = v;
  }
  return out;
}

// A name sent twice is refused: a parser that keeps the first and one that
// keeps the last would read two different callbacks out of one body.
function uniqueFields(form: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form) {
    if (Object.prototype.hasOwnProperty.call(out, k)) throw new WebhookVerificationError("invalid_body", `field ${k} is sent twice`);
    out[k] = v;
  }
  return out;
}

function text(body: RawBody): string {
  return typeof body === "string" ? body : Buffer.from(u8(body)).toString("utf8");
}

function isEnvelope(v: unknown): v is Event {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.id === "string" && typeof e.type === "string" && typeof e.created_at === "string" &&
    typeof e.version === "string" && "data" in e;
}
