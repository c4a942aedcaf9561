// Package walleta is the wallet_a family of PROVIDERS.md: a QR wallet whose
// API is form POSTs to one gateway address, signed RSA2 (RSASSA-PKCS1-v1_5
// with SHA-256 over the sorted name=value& base string) with our app key,
// and whose answers and notifications are signed with the provider's key.
//
// Initialise precreates a trade and returns its QR payload; the provider
// then notifies our notify address with a form POST (trade_status_sync),
// which Verify proves and maps to an Outcome, and which we answer with the
// text "success" (anything else makes the provider send it again, for about
// a day). Query asks for the trade by our order id.
//
// An account is in public-key mode (the provider's public key configured)
// or certificate mode (our app certificate, the provider's certificate and
// its root certificates configured; their serials go with every call, as
// the provider's SDK computes them: cert.go).
//
// The Simulator answers the same API for the sandbox: it checks our request
// signature with the sandbox app public key, serves the page a payer's
// wallet would show after scanning, and signs its notifications with the
// sandbox provider key. It takes the common parameters in the query string
// or the body, as the provider's gateway does, and checks the certificate
// serials when configured with them.
package walleta
