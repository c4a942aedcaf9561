package fiatpsp

import "github.com/paygate/gateway/provider"

// The signing internals and the notification bound, for the external tests
// (the package's tests drive the simulator, which imports this package).
var (
	RequestBase        = requestBase
	SignRequest        = signRequest
	NotificationBase   = notificationBase
	NotificationSigned = notificationSigned
)

const MaxNotifyBody = maxNotifyBody

// CreateValues is the create call's signed fields, for the vector test.
func (a *Adapter) CreateValues(p provider.Payment, nonce string) (map[string]string, error) {
	return a.createValues(p, nonce)
}
