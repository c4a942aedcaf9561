// Package checkout is everything a payer sees: the hosted payment page, the
// method selection and the providers' second steps, the USDT direct
// checkout, the balance login, and the status address the pages poll.
//
// It changes nothing itself. The few operations it needs (choose a method,
// cancel, submit a hash, pay from balance) are the Orders interface, which
// the command side satisfies and cmd/gateway wires, so that the pages and
// the use cases can change apart (DESIGN.md). Pages are html/template with
// their styles, script and message catalogues embedded: nothing is loaded
// from another host, and the Content-Security-Policy says so.
package checkout
