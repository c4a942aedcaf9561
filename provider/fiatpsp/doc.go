// Package fiatpsp is the fiat payment-service-provider family of
// PROVIDERS.md: a two-step method where the payer first picks one of the
// provider's payment systems (an integer id with a currency), then the
// payment is created at the provider and the payer is sent to its page.
//
// The protocol, as this package speaks it:
//
//   - Every call to the provider carries shopId and a fresh nonce and is
//     signed with hex HMAC-SHA256, keyed with the API key, over all its
//     values sorted by key name and joined with '|' (sign.go).
//   - GET {BaseURL}/currencies lists the payment systems (id, name,
//     currency, is_enabled).
//   - POST {BaseURL}/orders/create (JSON: shopId, nonce, paymentId = our
//     order id, i = system id, email, ip, amount, currency, and our
//     notification/success/failure addresses) answers the provider's order
//     id and the location to send the payer to.
//   - GET {BaseURL}/orders?paymentId=… answers the order's status (0 new,
//     1 paid, 6 refund, 8 error, 9 cancelled).
//   - When paid, the provider POSTs a form to our notify address
//     (MERCHANT_ID, AMOUNT, intid, MERCHANT_ORDER_ID, P_EMAIL, CUR_ID, SIGN)
//     with SIGN = md5(MERCHANT_ID:AMOUNT:secret2:MERCHANT_ORDER_ID), AMOUNT
//     exactly as the provider holds it; we answer the text YES. It sends
//     nothing when a payment fails: Query tells.
//
// CUR_ID is the payment system the payer paid with (the `i` of the create
// call), so the currency of AMOUNT is that system's currency; Verify reads it
// from the provider's systems list. The command side must therefore charge
// in the chosen system's currency (the simulator refuses anything else, and a
// live mismatch can never pay an order).
//
// Pure protocol knowledge: no Redis, no roles. The sandbox Simulator speaks
// the same protocol from inside the gateway.
package fiatpsp
