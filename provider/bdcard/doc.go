// Package bdcard is the protocol of the Bangladeshi card aggregator behind
// two methods, bdcard and bdpsp_a: the same protocol, two stores (each its
// own Config and credentials, its own simulator under
// /sandbox/provider/<family>, its own notification prefix
// /api/gatewaynotification/<family>/ with the path suffix "ipn").
//
// Initialise opens a session (a form POST with the store's id and
// password, the BDT amount, our order id as tran_id, our success, fail,
// cancel and IPN addresses, customer fields) and returns the provider's
// checkout page (Init.ProviderURL) and session key (Init.Ref). A USD order
// is charged in BDT: the command side converts and gives us Payment.Charge in
// BDT and Payment.Original in USD; the original travels as
// currency_type/currency_amount and the IPN carries it back with the rate.
//
// The IPN is a form POST signed with MD5 over the fields named in its
// verify_key plus store_passwd (the MD5 of the store password), sorted,
// name=value joined by & (sign.go). A signature is not enough to pay: a
// VALID IPN is confirmed by the validation call with its val_id, which must
// answer VALID or VALIDATED, risk level 0, for the same transaction, amount
// and currency. Paid is the BDT amount; the command side compares it with
// the converted amount it recorded. The answer to an accepted IPN is HTTP 200.
//
// The provider also sends the payer's browser back to our success, fail or
// cancel address, with fields much like the IPN's. Those are pages of ours
// and prove nothing: an order changes state only through a verified IPN (or
// a Query), never through a browser return.
package bdcard
