// The gateway's request and response shapes, as web/api/apidoc/openapi.json
// describes them. The SDK's tests compare these declarations with that
// document, so the two cannot drift apart unnoticed.

/** 0 pending, 1 ready, 2 paid, 3 failed, 4 cancelled. */
export type Status = 0 | 1 | 2 | 3 | 4;
export type StatusName = "pending" | "ready" | "paid" | "failed" | "cancelled";

/** An amount as sent: a number or a decimal string, at most two decimals. Strings are signed exactly as written. */
export type AmountLiteral = string | number;

/** What a create takes besides appid, action and the signature, which the client adds. */
export interface CreateOrderParams {
  amount: AmountLiteral;
  currency: "CNY" | "USD" | "BDT" | (string & {});
  paymentMethod: string;
  /** The public IP the request leaves from (must equal it); defaults to the client's clientip option. */
  clientip?: string;
  description?: string;
  customerName?: string;
  customerEmail?: string;
  customerPhone?: string;
  fiatpspSystemId?: number | string;
  allowedPaymentMethods?: string;
  lang?: string;
  return_url?: string;
  notify_url?: string;
  clientOrderId?: string;
}

/** The answer to a create (the response's data). */
export interface CreateOrderData {
  paymentId: string;
  orderId: string;
  redirectUrl: string | null;
  selectUrl?: string;
  nextAction?: "payment_method_select" | "fiatpsp_select" | "cryptopsp_select" | "usdt_direct_pay" | "usdt_review";
  payableAmount?: string;
  qrImageUrl: string | null;
  status: Status;
  statusString: StatusName;
  paidWithBalance: boolean;
  idempotent: boolean;
  amount: string;
  currency: string;
  paymentMethod: string;
  clientOrderId?: string;
  createdAt: string;
}

export type RefundStatus = "pending" | "succeeded" | "failed";

export interface Refund {
  refundId: string;
  paymentId: string;
  clientRefundId?: string;
  amount: string;
  currency: string;
  reason?: string;
  status: RefundStatus;
  error?: string;
  createdAt: string;
  updatedAt: string;
}

/** The answer to a refund: the refund as it stands and the order's refunded total. */
export interface RefundData extends Refund {
  refundedAmount: string;
  idempotent: boolean;
}

/** usdt_direct, once a transaction hash was submitted: where its review stands. */
export interface USDTReview {
  state: "queued" | "checking" | "not_found" | "confirming" | "retrying" | "waiting_admin" | "approved" | "rejected" | "closed";
  /** A machine word, or the administrator's own text when byAdministrator. */
  reason: string;
  byAdministrator?: boolean;
  txHash?: string;
  nextCheckAt?: string;
  checkUntil?: string;
  confirmations?: number;
  confirmationsRequired?: number;
}

/** An order as GET /api/order answers it. */
export interface Order {
  paymentId: string;
  orderId: string;
  status: Status;
  status_str: StatusName;
  amount: string;
  currency: string;
  paymentMethod: string;
  description?: string;
  clientOrderId?: string;
  notify_url?: string;
  return_url?: string;
  createdAt: string;
  completedTime?: string;
  redirectUrl?: string;
  selectUrl?: string;
  nextAction?: string;
  payableAmount?: string;
  qrImageUrl: string | null;
  paidWithBalance: boolean;
  sandbox: boolean;
  chargeAmount?: string;
  chargeCurrency?: string;
  fxRate?: string;
  payCurrency?: string;
  refundedAmount?: string;
  refunds?: Refund[];
  usdtReview?: USDTReview;
}

export interface OrderPage {
  page: number;
  limit: number;
  total: number;
  orders: Order[];
}

/** Filters of a listing (GET /api/order?action=orders). */
export interface OrderFilter {
  status?: StatusName | Status;
  clientOrderId?: string;
  /** ISO 8601: created at or after. */
  from?: string;
  /** ISO 8601: created before. */
  to?: string;
  paymentMethod?: string;
  currency?: string;
  /** Orders a page, 1 to 50 (default 10). */
  limit?: number;
  /** The first page to read (default 1). */
  page?: number;
}

export interface RefundParams {
  paymentId: string;
  amount: AmountLiteral;
  reason?: string;
  /** Per order: the same id again returns that refund and refunds nothing. */
  clientRefundId?: string;
}

/** A balance per currency; amounts are decimal strings, possibly negative. */
export interface Balance {
  currency: string;
  pending: string;
  available: string;
  reserve: string;
  payoutHold: string;
  total: string;
}

/** SPEC.md's paid-order callback, a form body signed with the API key. */
export interface PaidWebhook {
  paymentId: string;
  amount: string;
  currency: string;
  status: "2";
  status_str: "paid";
  paymentMethod: string;
  createdAt: string;
  completedTime?: string;
  description?: string;
  clientOrderId?: string;
  sign: string;
  sign_type: "MD5";
}

/** The refund callback sent to the same notify URL when a refund ends. */
export interface RefundWebhook {
  event: "refund";
  paymentId: string;
  refundId: string;
  clientRefundId?: string;
  clientOrderId?: string;
  amount: string;
  currency: string;
  refundStatus: "succeeded" | "failed";
  refundedAmount: string;
  reason?: string;
  createdAt: string;
  updatedAt: string;
  sign: string;
  sign_type: "MD5";
}

/** The event types webhook endpoints receive (docs/events.md). */
export const eventTypes = [
  "order.paid",
  "order.failed",
  "order.cancelled",
  "order.expired",
  "order.refunded",
  "refund.failed",
  "usdt.underpaid",
  "usdt.overpaid",
  "usdt.late",
  "balance.settled",
  "payout.requested",
  "payout.approved",
  "payout.rejected",
  "payout.paid",
  "payout.failed",
  "payout_destination.changed",
  "endpoint.test",
  "endpoint.disabled",
] as const;
export type EventType = (typeof eventTypes)[number];

/** The envelope every endpoint event comes in. data's shape depends on type (an Order for order.*). */
export interface Event<T = unknown> {
  id: string;
  type: EventType | (string & {});
  created_at: string;
  version: string;
  data: T;
}

/** An order.* event: its data is the order. */
export type OrderEvent = Event<Order> & { type: "order.paid" | "order.failed" | "order.cancelled" | "order.expired" | "order.refunded" };
