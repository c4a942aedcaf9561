// Package walletb is the wallet_b family of PROVIDERS.md: a QR wallet with
// a JSON API whose calls carry an Authorization header signed with our
// merchant key (RSA SHA-256 over method, path, time stamp, nonce and body),
// whose answers and notifications are signed with the provider's platform
// key (over time stamp, nonce and body, in headers), and whose notification
// carries the transaction encrypted with AES-256-GCM under our API v3 key.
//
// Initialise creates a native (QR) transaction with the amount in integer
// minor units and returns its code_url; the provider notifies our notify
// address with a TRANSACTION.SUCCESS event, which Verify proves (signature,
// serial, replay window), decrypts and maps to an Outcome; we answer 204.
// Query asks for the transaction by our order id.
//
// The platform key is picked by the serial each message names, among the
// configured keys and those the provider's certificates call lists
// (platform.go), so the provider can rotate its certificate without a
// restart here.
//
// The Simulator answers the same API for the sandbox: it checks our
// Authorization header with the sandbox merchant public key, serves the
// page a payer's wallet would show after scanning, signs every answer and
// notification with the sandbox platform key and encrypts the resource with
// the sandbox API v3 key; it serves the certificates call and can rotate
// its platform certificate (Rotate).
package walletb
