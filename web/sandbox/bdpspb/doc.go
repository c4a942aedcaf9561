// Package bdpspb is the sandbox's simulated bdpsp_b provider: payment
// creation, the payment page, the browser's return to the merchant and the
// transaction search, with the family's own request and answer types
// (provider/bdpspb).
package bdpspb
