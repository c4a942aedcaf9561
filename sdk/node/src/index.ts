// The official Node SDK of the paygate payment gateway.
export { Client, type ClientOptions, type RequestOptions } from "./client.js";
export { sign, signBase, verifySign, type Params } from "./sign.js";
export {
  verifyFormWebhook,
  isRefundWebhook,
  verifyHeaders,
  constructEvent,
  DEFAULT_TOLERANCE_SECONDS,
  HEADER_ID,
  HEADER_TIMESTAMP,
  HEADER_SIGNATURE,
  type HeaderSource,
  type RawBody,
  type FormWebhook,
  type VerifyHeadersOptions,
} from "./webhook.js";
export { PaygateError, ApiError, ConnectionError, WebhookVerificationError, errorKinds, type ErrorKind, type WebhookFailure } from "./errors.js";
export { VERSION } from "./version.js";
export * from "./types.js";
