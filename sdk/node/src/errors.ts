// Typed errors: a merchant's code branches on the gateway's error kind and
// HTTP status, never on a message meant for people.

/** The kinds of error the gateway answers (openapi.json ErrorKind), each with its HTTP status. */
export const errorKinds = [
  "invalid_request",
  "missing_parameter",
  "invalid_parameter",
  "invalid_sign_type",
  "unsupported_method",
  "method_unavailable",
  "insufficient_balance",
  "below_minimum",
  "invalid_appid",
  "invalid_sign",
  "invalid_key",
  "bad_credentials",
  "merchant_disabled",
  "clientip_mismatch",
  "forbidden",
  "order_not_found",
  "not_found",
  "method_not_allowed",
  "conflict",
  "idempotency_mismatch",
  "idempotency_in_progress",
  "request_too_large",
  "rate_limited",
  "internal_error",
  "provider_refused",
  "unavailable",
  "refund_exceeds_paid",
  "refund_mismatch",
  "refund_not_supported",
] as const;
export type ErrorKind = (typeof errorKinds)[number];

/** The root of every error this SDK throws. */
export class PaygateError extends Error {
  override name = "PaygateError";
}

/** The gateway answered with an error: kind is its `error` member, status the HTTP status. */
export class ApiError extends PaygateError {
  override name = "ApiError";
  /** The gateway's error kind; a kind this SDK version does not know yet is passed through as is. */
  readonly kind: ErrorKind | (string & {});
  readonly status: number;
  /** Seconds the gateway asked to wait (429 Retry-After), when it said. */
  readonly retryAfter: number | undefined;
  /** The Idempotency-Key the request was sent with, if any. */
  readonly idempotencyKey: string | undefined;

  constructor(status: number, kind: string, message: string, opts: { retryAfter?: number; idempotencyKey?: string } = {}) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.kind = kind;
    this.retryAfter = opts.retryAfter;
    this.idempotencyKey = opts.idempotencyKey;
  }
}

/** The request never got an answer: the connection failed or the time-out ran out (cause says which). */
export class ConnectionError extends PaygateError {
  override name = "ConnectionError";
  readonly timedOut: boolean;
  readonly idempotencyKey: string | undefined;

  constructor(message: string, opts: { cause?: unknown; timedOut?: boolean; idempotencyKey?: string } = {}) {
    super(message, { cause: opts.cause });
    this.timedOut = opts.timedOut ?? false;
    this.idempotencyKey = opts.idempotencyKey;
  }
}

/** A webhook failed verification; reason names what failed, for logs (answer the sender a 4xx). */
export class WebhookVerificationError extends PaygateError {
  override name = "WebhookVerificationError";
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type WebhookFailure =
  | "missing_sign"
  | "invalid_sign"
  | "missing_header"
  | "invalid_timestamp"
  | "stale_timestamp"
  | "invalid_signature"
  | "invalid_secret"
  | "invalid_body";
