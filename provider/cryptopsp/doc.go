// Package cryptopsp is the crypto payment processor family of
// PROVIDERS.md. The payer first picks a cryptocurrency on our page (the
// provider lists them and, per currency, a minimum amount); we then create
// an invoice priced in fiat with that pay_currency and send the payer to
// its URL. The provider reports by IPN: a JSON POST whose x-cryptopsp-sig
// header is the hex HMAC-SHA512, under the IPN secret, of the body
// re-serialised as compact JSON with keys sorted at every level and numbers
// kept as their literal (decoded with UseNumber, written by our own
// encoder, never through float64).
//
// Only "finished" is paid in full (Paid = price_amount and price_currency,
// exactly); "partially_paid" is partial and never pays; the notification's
// Ref is the payment id, which is also what Query asks about (the invoice
// id that Initialise returns names no payment at the provider).
//
// Pure protocol knowledge: no Redis, no roles; the simulator keeps its
// invoices and payments in a provider.State.
package cryptopsp
