// Package bdpspb is the protocol of bdpsp_b, a Bangladeshi redirect
// checkout with no server notification at all.
//
// Initialise is one JSON call authenticated by the account's static key
// (store_id and signature_key in the body; the provider has no token grant)
// with the BDT amount (a USD order is converted by the command side first),
// our order id as tran_id and three return addresses. It answers with the
// payment page (Init.ProviderURL) and the provider's id (Init.Ref).
//
// The return addresses are our notification endpoints, not our pages:
// Payment.NotifyURL must be /api/gatewaynotification/bdpsp_b/return and
// the adapter sends it with /success, /fail and /cancel appended. After
// paying, failing or cancelling, the payer's browser POSTs a status and our
// transaction id there; the gateway hands it to Verify with Request.Path
// "return/success", "return/fail" or "return/cancel". A browser proves
// nothing: Verify reads only our transaction id from it and asks the
// provider's transaction search (an idempotent GET with the key in its
// query), whose answer alone decides (see Verify). Reply redirects the payer
// with 303 See Other and an empty Location, which the gateway sets to the
// order's page.
//
// The simulator serves the same API, a payment page, and after Pay or Fail
// the page a real provider shows: a form that posts the return to us (the
// tester submits it; there is no script). Settle posts that form itself.
package bdpspb
