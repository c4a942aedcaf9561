// One request to the gateway with the SDK's manners: a time-out per attempt,
// retries with exponential backoff and jitter on what a retry can mend (no
// answer, 429, 5xx, an idempotent call still running), the same
// Idempotency-Key on every attempt of a POST so a retried create or refund
// can never be done twice, and the gateway's error kind on what it refuses.

import { randomUUID } from "node:crypto";
import { ApiError, ConnectionError } from "./errors.js";
import { VERSION } from "./version.js";

export interface TransportOptions {
  baseUrl: string;
  /** Per attempt, in milliseconds; default 30 000. */
  timeoutMs: number;
  /** Attempts after the first; default 2. */
  maxRetries: number;
  /** The first backoff, doubled at each retry (with jitter); default 500 ms. */
  retryBaseMs: number;
  /** The longest wait between attempts, Retry-After included; default 30 000 ms. */
  retryMaxMs: number;
  fetch: typeof fetch;
  userAgent: string;
}

export interface RequestOptions {
  /** For POSTs: a key of your own (e.g. derived from your order), else a random one; kept across retries. */
  idempotencyKey?: string;
  /** Overrides the client's time-out for this call. */
  timeoutMs?: number;
  /** Aborts the call, retries included. */
  signal?: AbortSignal;
}

export const defaultUserAgent = `paygate-node/${VERSION}`;

interface Envelope {
  code?: unknown;
  msg?: unknown;
  error?: unknown;
  data?: unknown;
}

export class Transport {
  constructor(private readonly o: TransportOptions) {}

  /** GET path?query; answers the response's data. */
  get<T>(path: string, query: URLSearchParams, opts: RequestOptions = {}): Promise<T> {
    return this.send<T>("GET", `${path}?${query.toString()}`, undefined, opts);
  }

  /** POST path with a JSON body and an Idempotency-Key; answers the response's data. */
  post<T>(path: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
    return this.send<T>("POST", path, JSON.stringify(body), { ...opts, idempotencyKey: opts.idempotencyKey ?? randomUUID() });
  }

  private async send<T>(method: string, path: string, body: string | undefined, opts: RequestOptions): Promise<T> {
    const headers: Record<string, string> = { "User-Agent": this.o.userAgent, Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (opts.idempotencyKey !== undefined) headers["Idempotency-Key"] = opts.idempotencyKey;
    for (let attempt = 0; ; attempt++) {
      let wait: number;
      try {
        return await this.attempt<T>(method, path, body, headers, opts);
      } catch (err) {
        if (attempt >= this.o.maxRetries || !retryable(err) || opts.signal?.aborted) throw err;
        wait = this.backoff(attempt, err);
      }
      await sleep(wait, opts.signal);
    }
  }

  private async attempt<T>(method: string, path: string, body: string | undefined, headers: Record<string, string>, opts: RequestOptions): Promise<T> {
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? this.o.timeoutMs);
    const signal = anySignal(timeout, opts.signal);
    let res: Response;
    let text: string;
    try {
      res = await this.o.fetch(this.o.baseUrl + path, { method, headers, body, signal, redirect: "manual" });
      text = await res.text();
    } catch (err) {
      const timedOut = timeout.aborted;
      throw new ConnectionError(timedOut ? `${method} ${pathOnly(path)}: no answer in time` : `${method} ${pathOnly(path)}: ${String(err)}`, {
        cause: err,
        timedOut,
        idempotencyKey: opts.idempotencyKey,
      });
    }
    return decode<T>(res, text, opts.idempotencyKey);
  }

  private backoff(attempt: number, err: unknown): number {
    const exp = Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** attempt);
    let wait = exp / 2 + Math.random() * (exp / 2);
    if (err instanceof ApiError && err.retryAfter !== undefined) wait = Math.max(wait, err.retryAfter * 1000);
    return Math.min(wait, this.o.retryMaxMs);
  }
}

/** The answer's data, or the ApiError it stands for. */
function decode<T>(res: Response, text: string, idempotencyKey: string | undefined): T {
  let env: Envelope | undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) env = v as Envelope;
  } catch {
    env = undefined;
  }
  if (res.ok && env !== undefined && env.code === 0 && "data" in env) return env.data as T;
  const kind = typeof env?.error === "string" ? env.error : res.ok ? "invalid_response" : statusKind(res.status);
  const msg = typeof env?.msg === "string" ? env.msg : `HTTP ${res.status}`;
  const ra = Number(res.headers.get("retry-after"));
  return throwApi(res.status, kind, msg, { retryAfter: Number.isFinite(ra) && ra > 0 ? ra : undefined, idempotencyKey });
}

function throwApi(status: number, kind: string, msg: string, o: { retryAfter: number | undefined; idempotencyKey: string | undefined }): never {
  const opts: { retryAfter?: number; idempotencyKey?: string } = {};
  if (o.retryAfter !== undefined) opts.retryAfter = o.retryAfter;
  if (o.idempotencyKey !== undefined) opts.idempotencyKey = o.idempotencyKey;
  throw new ApiError(status, kind, msg, opts);
}

// What a retry can mend: no answer, too many requests, the server's own
// failure, or the same idempotent call still running. A 4xx otherwise says
// the request itself is wrong and would be wrong again.
function retryable(err: unknown): boolean {
  if (err instanceof ConnectionError) return true;
  if (!(err instanceof ApiError)) return false;
  return err.status === 429 || err.status >= 500 || err.kind === "idempotency_in_progress";
}

function statusKind(status: number): string {
  if (status === 429) return "rate_limited";
  if (status === 503) return "unavailable";
  if (status >= 500) return "internal_error";
  return "invalid_response";
}

// A path's query holds the query key: error messages name the path only.
function pathOnly(path: string): string {
  const q = path.indexOf("?");
  return q < 0 ? path : path.slice(0, q);
}

// AbortSignal.any is Node 20.3+; the SDK supports 18.
function anySignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  if (b === undefined) return a;
  const c = new AbortController();
  const abort = (s: AbortSignal) => () => c.abort(s.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  else {
    a.addEventListener("abort", abort(a), { once: true });
    b.addEventListener("abort", abort(b), { once: true });
  }
  return c.signal;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ConnectionError("aborted", { cause: signal.reason }));
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(new ConnectionError("aborted", { cause: signal?.reason }));
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
