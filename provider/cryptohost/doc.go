// Package cryptohost is the hosted crypto charge family of PROVIDERS.md: we
// create a charge for the order's amount at the provider, send the payer to
// its hosted page, and learn the outcome from a JSON webhook whose raw body
// is signed with HMAC-SHA256 under the shared webhook secret.
//
// Protocol choices the vectors leave open, decided here:
//   - the signature header is X-Signature (lower-case hex), configurable as
//     SignatureHeader; the API key and version travel in X-Api-Key and
//     X-Api-Version, configurable too;
//   - webhooks go to the one endpoint subscribed at the provider (the
//     gateway's /api/gatewaynotification/cryptohost/webhook), not to a URL
//     sent with each charge, so Payment.NotifyURL is not sent;
//   - events: created, pending and delayed (money arrived after expiry,
//     awaiting resolution) are pending; confirmed, and resolved (the
//     provider's final word on a charge that needed resolving), are paid in
//     full unless the payments the event carries add up to less than the
//     price (then partial); failed is failed, or expired when the charge's
//     timeline ends in EXPIRED, or partial when some money did arrive;
//     unknown events are accepted as pending so the provider stops resending.
//
// The sub-package boundary keeps it pure protocol knowledge: no Redis, no
// roles; the simulator keeps its charges in a provider.State.
package cryptohost
