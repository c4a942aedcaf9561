// The merchant's client: every call of the merchant API as a promise, signed
// and authenticated as SPEC.md says, over the transport's retries.

import { sign, type Params } from "./sign.js";
import { Transport, defaultUserAgent, type RequestOptions } from "./transport.js";
import type { Balance, CreateOrderData, CreateOrderParams, Order, OrderFilter, OrderPage, RefundData, RefundParams } from "./types.js";

export interface ClientOptions {
  /** The gateway's base address, e.g. https://pay.example.com. */
  baseUrl: string;
  appid: string;
  /** The API key: signs creates, cancels and refunds and verifies callbacks; never sent. */
  apiKey: string;
  /** The query key: reads orders and balances. */
  queryKey?: string;
  /** Your server's public IP, sent as clientip on creates that do not name one. */
  clientip?: string;
  /** Per attempt; default 30 000 ms. */
  timeoutMs?: number;
  /** Attempts after the first on a failure a retry can mend; default 2. */
  maxRetries?: number;
  /** First backoff (doubled each retry, with jitter); default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait between attempts; default 30 000 ms. */
  retryMaxMs?: number;
  /** A fetch of your own (proxies, tests); default the global fetch. */
  fetch?: typeof fetch;
  /** Added after paygate-node/<version> in the User-Agent. */
  userAgent?: string;
}

export type { RequestOptions };

export class Client {
  private readonly t: Transport;
  private readonly base: string;

  constructor(private readonly o: ClientOptions) {
    if (!o.baseUrl || !o.appid || !o.apiKey) throw new TypeError("baseUrl, appid and apiKey are required");
    this.base = o.baseUrl.replace(/\/+$/, "");
    this.t = new Transport({
      baseUrl: this.base,
      timeoutMs: o.timeoutMs ?? 30_000,
      maxRetries: o.maxRetries ?? 2,
      retryBaseMs: o.retryBaseMs ?? 500,
      retryMaxMs: o.retryMaxMs ?? 30_000,
      fetch: o.fetch ?? globalThis.fetch.bind(globalThis),
      userAgent: o.userAgent ? `${defaultUserAgent} ${o.userAgent}` : defaultUserAgent,
    });
  }

  /** Creates an order (POST /api/createorder); a live clientOrderId answers its order with idempotent true. */
  create(params: CreateOrderParams, opts?: RequestOptions): Promise<CreateOrderData> {
    return this.t.post<CreateOrderData>("/api/createorder", this.createParams(params), opts);
  }

  /** The signed address of the hosted payment page (GET /api/createorder) for the payer's browser. */
  hostedUrl(params: CreateOrderParams): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(this.createParams(params))) {
      if (v !== null && v !== undefined) q.set(k, String(v));
    }
    return `${this.base}/api/createorder?${q.toString()}`;
  }

  /** One order (GET /api/order?action=order). */
  order(paymentId: string, opts?: RequestOptions): Promise<Order> {
    return this.t.get<Order>("/api/order", this.query({ action: "order", paymentId }), opts);
  }

  /** One page of orders, newest first (GET /api/order?action=orders). */
  ordersPage(filter: OrderFilter = {}, opts?: RequestOptions): Promise<OrderPage> {
    return this.t.get<OrderPage>("/api/order", this.query({ action: "orders", ...filter }), opts);
  }

  /** Every order the filter matches, newest first, reading page after page as the loop asks. */
  async *orders(filter: OrderFilter = {}, opts?: RequestOptions): AsyncGenerator<Order, void, undefined> {
    for (let page = filter.page ?? 1; ; page++) {
      const p = await this.ordersPage({ ...filter, page }, opts);
      yield* p.orders;
      if (p.orders.length === 0 || p.orders.length < p.limit || page * p.limit >= p.total) return;
    }
  }

  /** Refunds a paid order, fully or in part (POST /api/order/refund). */
  refund(params: RefundParams, opts?: RequestOptions): Promise<RefundData> {
    return this.t.post<RefundData>("/api/order/refund", this.signed({ ...params, action: "refund" }), opts);
  }

  /** Cancels a pending or ready order (POST /api/order/cancel); answers it as action=order would. */
  cancel(paymentId: string, opts?: RequestOptions): Promise<Order> {
    return this.t.post<Order>("/api/order/cancel", this.signed({ action: "cancel", paymentId }), opts);
  }

  /** The merchant's balances, one per currency (GET /api/balance). */
  balance(opts?: RequestOptions): Promise<Balance[]> {
    return this.t.get<Balance[]>("/api/balance", this.query({}), opts);
  }

  private createParams(params: CreateOrderParams): Params {
    const p: Params = { ...params, action: "createorder" };
    if (p.clientip === undefined && this.o.clientip !== undefined) p.clientip = this.o.clientip;
    return this.signed(p);
  }

  // appid in, sign_type MD5, sign over everything else with the API key.
  private signed(p: Params): Params {
    const out: Params = { ...p, appid: this.o.appid, sign_type: "MD5" };
    out.sign = sign(out, this.o.apiKey);
    return out;
  }

  private query(params: Record<string, string | number | undefined>): URLSearchParams {
    if (!this.o.queryKey) throw new TypeError("queryKey is required to read orders and balances");
    const q = new URLSearchParams({ appid: this.o.appid, key: this.o.queryKey });
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    return q;
  }
}
