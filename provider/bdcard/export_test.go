package bdcard

// The IPN's signature fields, for the external tests that forge IPNs.
const (
	FieldVerifyKey  = fieldVerifyKey
	FieldVerifySign = fieldVerifySign
)
