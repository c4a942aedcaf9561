package walleta

// The notification check and its bound, for the external tests (they drive
// the simulator, which imports this package).
var VerifyNotification = verifyNotification

const MaxNotifyBody = maxNotifyBody

// SignedForm is a call's signed parameters as the adapter would send them.
func (a *Adapter) SignedForm(method string, biz any, notifyURL string) (string, error) {
	return a.signedForm(a.cfg.MethodPrefix+method, biz, notifyURL)
}
