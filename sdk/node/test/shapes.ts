// The SDK's declared types as lists of field names the compiler holds to
// them: a field added to or removed from a type without its list (or the
// other way round) does not compile. The OpenAPI test compares these lists
// with the document; the live test compares the binary's answers with them.

import type {
  Balance,
  CreateOrderData,
  CreateOrderParams,
  Event,
  Order,
  OrderFilter,
  OrderPage,
  PaidWebhook,
  Refund,
  RefundData,
  RefundParams,
  RefundWebhook,
  USDTReview,
} from "../src/index.js";

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T] & string;
type OptionalKeys<T> = Exclude<keyof T & string, RequiredKeys<T>>;

export interface Shape {
  required: readonly string[];
  optional: readonly string[];
}

/**
 * shape<T>()(required, optional): both lists exactly T's required and
 * optional keys, or a compile error (a missing key turns the argument's
 * type into never).
 */
export function shape<T>() {
  return <const R extends readonly RequiredKeys<T>[], const O extends readonly OptionalKeys<T>[]>(
    required: R & ([RequiredKeys<T>] extends [R[number]] ? unknown : never),
    optional: O & ([OptionalKeys<T>] extends [O[number]] ? unknown : never),
  ): Shape => ({ required, optional });
}

export const shapes = {
  CreateOrderData: shape<CreateOrderData>()(
    ["paymentId", "orderId", "redirectUrl", "qrImageUrl", "status", "statusString", "paidWithBalance", "idempotent", "amount", "currency", "paymentMethod", "createdAt"],
    ["selectUrl", "nextAction", "payableAmount", "clientOrderId"],
  ),
  Order: shape<Order>()(
    ["paymentId", "orderId", "status", "status_str", "amount", "currency", "paymentMethod", "createdAt", "qrImageUrl", "paidWithBalance", "sandbox"],
    ["description", "clientOrderId", "notify_url", "return_url", "completedTime", "redirectUrl", "selectUrl", "nextAction", "payableAmount",
      "chargeAmount", "chargeCurrency", "fxRate", "payCurrency", "refundedAmount", "refunds", "usdtReview"],
  ),
  OrderPage: shape<OrderPage>()(["page", "limit", "total", "orders"], []),
  Refund: shape<Refund>()(["refundId", "paymentId", "amount", "currency", "status", "createdAt", "updatedAt"], ["clientRefundId", "reason", "error"]),
  RefundData: shape<RefundData>()(
    ["refundId", "paymentId", "amount", "currency", "status", "createdAt", "updatedAt", "refundedAmount", "idempotent"],
    ["clientRefundId", "reason", "error"],
  ),
  USDTReview: shape<USDTReview>()(["state", "reason"], ["byAdministrator", "txHash", "nextCheckAt", "checkUntil", "confirmations", "confirmationsRequired"]),
  Balance: shape<Balance>()(["currency", "pending", "available", "reserve", "payoutHold", "total"], []),
  PaidWebhook: shape<PaidWebhook>()(
    ["paymentId", "amount", "currency", "status", "status_str", "paymentMethod", "createdAt", "sign", "sign_type"],
    ["completedTime", "description", "clientOrderId"],
  ),
  RefundWebhook: shape<RefundWebhook>()(
    ["event", "paymentId", "refundId", "amount", "currency", "refundStatus", "refundedAmount", "createdAt", "updatedAt", "sign", "sign_type"],
    ["clientRefundId", "clientOrderId", "reason"],
  ),
} as const;

/** The request types: what the caller gives; the client adds appid, action, sign and sign_type. */
export const requestShapes = {
  CreateOrderRequest: shape<CreateOrderParams>()(
    ["amount", "currency", "paymentMethod"],
    ["clientip", "description", "customerName", "customerEmail", "customerPhone", "fiatpspSystemId", "allowedPaymentMethods", "lang",
      "return_url", "notify_url", "clientOrderId"],
  ),
  RefundRequest: shape<RefundParams>()(["paymentId", "amount"], ["reason", "clientRefundId"]),
} as const;

export const filterShape = shape<OrderFilter>()([], ["status", "clientOrderId", "from", "to", "paymentMethod", "currency", "limit", "page"]);
export const envelopeShape = shape<Event>()(["id", "type", "created_at", "version", "data"], []);

/** Every key of obj is one the shape declares: the answer holds nothing the SDK's type lacks. */
export function undeclared(obj: object, s: Shape): string[] {
  const known = new Set([...s.required, ...s.optional]);
  return Object.keys(obj).filter((k) => !known.has(k));
}

/** The required keys of the shape obj lacks. */
export function missing(obj: object, s: Shape): string[] {
  return s.required.filter((k) => !(k in obj));
}
