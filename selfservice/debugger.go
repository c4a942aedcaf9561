package selfservice

import (
	"context"
	"errors"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Signed endpoints the debugger knows, by the name the page offers.
var debugForms = map[string]schema.SignedForm{
	"createorder": schema.CreateForm,
	"cancel":      schema.CancelForm,
	"refund":      schema.RefundForm,
	"resend":      schema.ResendForm,
	"other":       schema.AnySignedForm,
}

// Bounds of what the debugger takes.
const (
	maxDebugParams = 64
	maxDebugBytes  = 64 << 10
)

// SignDebug is the debugger's answer.
type SignDebug struct {
	// FormError is why the endpoint would refuse the set before looking
	// at its sign (schema.SignedForm), "" when it would not.
	FormError string
	// Signed is the exact string we hash: the parameters but sign and
	// sign_type, sorted, joined, then the API key, written as {key}.
	Signed string
	// Sign is its MD5 with the merchant's current API key.
	Sign string
	// Verdict is what the sign given (if any) verifies with: "current",
	// "previous" (the rotated key, in its grace period), "none", or ""
	// when no sign was given.
	Verdict string
	// OtherAppID is set when the set names an appid that is not the
	// merchant's: the API would judge it by that merchant's key.
	OtherAppID bool
}

// ErrLiveMerchant refuses the debugger to a live merchant: its answers are
// signatures made with the merchant's key, which a sandbox integration may
// be shown and a live account's must not be (a console session should not
// be able to mint signed live requests).
var ErrLiveMerchant = errors.New("the signature debugger is for sandbox merchants only")

// DebugSignature shows, for a sandbox merchant, what the endpoint's
// signature check does with parameters p: the same code the API signs and
// verifies with (schema.SignBase, schema.Sign, schema.VerifySign).
func (d *Keys) DebugSignature(ctx context.Context, actor access.Actor, endpoint string, p schema.Params) (*SignDebug, error) {
	appid, err := may(actor, access.PermSandboxDrive)
	if err != nil {
		return nil, err
	}
	a, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	if !a.Sandbox {
		return nil, &platform.Error{Kind: platform.KindForbidden, Msg: ErrLiveMerchant.Error(), Err: ErrLiveMerchant}
	}
	form, ok := debugForms[endpoint]
	if !ok {
		return nil, invalid("endpoint must be createorder, cancel, refund, resend or other")
	}
	if err := boundParams(p); err != nil {
		return nil, err
	}
	out := &SignDebug{Signed: schema.SignBase(p) + "{key}", Sign: schema.Sign(p, a.APIKey),
		OtherAppID: otherAppID(p, appid)}
	var fe *schema.FormError
	if err := form.Check(p); errors.As(err, &fe) {
		out.FormError = fe.Reason
	}
	if given := p["sign"]; given != "" {
		out.Verdict = "none"
		for i, key := range a.SignKeys(d.now()) {
			if schema.VerifySign(p, key, given) {
				out.Verdict = map[bool]string{true: "current", false: "previous"}[i == 0]
				break
			}
		}
	}
	return out, nil
}

func boundParams(p schema.Params) error {
	size := 0
	for k, v := range p {
		size += len(k) + len(v)
	}
	if len(p) == 0 || len(p) > maxDebugParams || size > maxDebugBytes {
		return invalid("give 1 to %d parameters, at most %d KiB in all", maxDebugParams, maxDebugBytes>>10)
	}
	return nil
}

// otherAppID says the parameters name a merchant other than the session's:
// the debugger signs with the session's key, so such a sign would never
// verify. An appid is public, so a plain comparison is right here.
func otherAppID(p schema.Params, appid string) bool {
	return p["appid"] != "" && p["appid"] != appid
}
