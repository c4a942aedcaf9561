package walletb

import "crypto/rsa"

// MaxNotifyBody is the notification bound, for the external tests (they
// drive the simulator, which imports this package).
const MaxNotifyBody = maxNotifyBody

// Decrypt opens a notification's resource, for the tests that read what
// the simulator sealed.
func (r Resource) Decrypt(apiv3Key []byte) ([]byte, error) { return r.decrypt(apiv3Key) }

// Key is the adapter's merchant key, for the signing round trip test.
func (a *Adapter) Key() *rsa.PrivateKey { return a.key }
