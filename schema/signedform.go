package schema

import (
	"fmt"
	"strings"
)

// SPEC.md's signed string joins name=value pairs with '&' and encodes
// nothing, so on its own it does not say where one parameter ends: the
// pairs {customerName: "Eve&paymentMethod=balance", ...} and {customerName:
// "Eve", paymentMethod: "balance", ...} can give the same string, and one
// signature then covers both. A SignedForm is the set of parameter sets an
// endpoint accepts, chosen so that a signed string splits back into them in
// one way only (SECURITY.md has the argument):
//
//   - a name is one of the endpoint's names or ExtPrefix and up to 60 of
//     [A-Za-z0-9_]: never '&' or '=', so the first '=' of a pair ends its
//     name and '=' in a value is harmless;
//   - a value, other than a URL's, holds no '&';
//   - a URL value (notify_url, return_url) holds no "&K=" where K is a name
//     the form accepts (sign and sign_type aside: they are not in the signed
//     string), so no piece of a URL reads as another parameter.
//
// Then every '&' of a signed string that is followed by an accepted "K=" is
// a separator and no other is: the split is unique, and a set a merchant
// signed with the form's names can be re-read only by cutting its values
// further, never by merging, changing or dropping one of its parameters.

// ExtPrefix starts the names a merchant may add to a signed request for its
// own use: signed and otherwise ignored.
const ExtPrefix = "ext_"

// maxExtName bounds what follows ExtPrefix.
const maxExtName = 60

// SignedForm is one signed endpoint's accepted names.
type SignedForm struct {
	names map[string]bool
	urls  map[string]bool
}

// NewSignedForm is a form of names, of which urls (also names) hold URLs.
func NewSignedForm(names, urls []string) SignedForm {
	f := SignedForm{names: map[string]bool{"sign": true, "sign_type": true}, urls: map[string]bool{}}
	for _, n := range names {
		f.names[n] = true
	}
	for _, u := range urls {
		f.names[u], f.urls[u] = true, true
	}
	return f
}

// Signed endpoints' forms: SPEC.md's create table, and the README's
// cancel, refund and webhook resend calls.
var (
	CreateForm = NewSignedForm([]string{"appid", "clientip", "action", "amount", "currency", "paymentMethod",
		"description", "customerName", "customerEmail", "customerPhone", "fiatpspSystemId", "allowedPaymentMethods",
		"lang", "clientOrderId"}, []string{"return_url", "notify_url"})
	CancelForm = NewSignedForm([]string{"appid", "action", "paymentId", "clientip"}, nil)
	RefundForm = NewSignedForm([]string{"appid", "action", "paymentId", "amount", "reason", "clientRefundId", "clientip"}, nil)
	ResendForm = NewSignedForm([]string{"appid", "action", "paymentId", "refundId"}, nil)
	// AnySignedForm is for a signed call without a form of its own: any
	// name of [A-Za-z0-9_], no URL, so no '&' in any value.
	AnySignedForm = SignedForm{}
)

// FormError says which parameter a signed form refuses, and why.
type FormError struct {
	Param  string
	Reason string
}

func (e *FormError) Error() string { return e.Reason }

// Check refuses a parameter set whose signed string could be read as
// another set (see SignedForm).
func (f SignedForm) Check(p Params) error {
	for name, v := range p {
		if !f.Accepts(name) {
			return &FormError{Param: name, Reason: fmt.Sprintf("parameter %.64q is not accepted: names are the API's own, "+
				"or %s followed by 1 to %d of A-Z a-z 0-9 _", name, ExtPrefix, maxExtName)}
		}
		if name == "sign" || name == "sign_type" {
			continue
		}
		if err := f.checkValue(name, v); err != nil {
			return err
		}
	}
	return nil
}

func (f SignedForm) checkValue(name, v string) error {
	if !f.urls[name] {
		if strings.IndexByte(v, '&') >= 0 {
			return &FormError{Param: name, Reason: name + ` must not contain "&": the signed string joins name=value pairs ` +
				`with "&", so a value holding one could be read as more parameters`}
		}
		return nil
	}
	for rest := v; ; {
		i := strings.IndexByte(rest, '&')
		if i < 0 {
			return nil
		}
		rest = rest[i+1:]
		k, _, found := strings.Cut(rest, "=")
		if found && k != "sign" && k != "sign_type" && f.Accepts(k) {
			return &FormError{Param: name, Reason: fmt.Sprintf(`%s must not contain "&%s=": in the signed string that piece `+
				`reads as the parameter %s (put it first in the query, or name it otherwise)`, name, k, k)}
		}
	}
}

// Accepts reports whether name may appear in a request of the form.
func (f SignedForm) Accepts(name string) bool {
	if f.names == nil {
		return len(name) > 0 && len(name) <= 64 && nameChars(name)
	}
	if f.names[name] {
		return true
	}
	ext, ok := strings.CutPrefix(name, ExtPrefix)
	return ok && len(ext) > 0 && len(ext) <= maxExtName && nameChars(ext)
}

func nameChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
