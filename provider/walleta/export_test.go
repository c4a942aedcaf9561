package walleta

// The notification check and its bound, for the external tests (they drive
// the simulator, which imports this package).
var VerifyNotification = verifyNotification

const MaxNotifyBody = maxNotifyBody
