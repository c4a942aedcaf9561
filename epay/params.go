package epay

import (
	"errors"
	"fmt"
	"net/netip"
	"unicode/utf8"

	"github.com/paygate/gateway/schema"
)

// Names are the create parameters the door accepts (submit.php and
// mapi.php): the protocol's, as its plugins send them. sitename is shown by
// the protocol's own cashier only; we accept and ignore it.
var Names = []string{"pid", "type", "out_trade_no", "notify_url", "return_url", "name", "money", "param",
	"clientip", "device", "sitename", "sign", "sign_type"}

// form is the door's parameter-set check. The protocol signs name=value
// pairs joined with '&' and encodes nothing, so {name: "a&notify_url=x"}
// and {name: "a", notify_url: "x"} give one signed string. Every value is
// held to the rule SPEC.md's form holds URLs to (schema.SignedForm): no
// "&K=" where K is a name the door accepts, and no other names. Then an '&'
// of a signed string is a separator exactly when an accepted "K=" follows,
// and a string splits back into one accepted set only. A plain '&' ("Tom &
// Jerry") stays allowed, as merchants' product names hold them.
var form = schema.NewSignedForm(nil, Names)

// MaxParam bounds param, the merchant's pass-through: stored on the order
// and sent back in every notification.
const MaxParam = 512

// maxName bounds name, our order description.
const maxName = 256

// checkForm refuses a set the signed string could be read as another of.
func checkForm(p Params) error {
	var fe *schema.FormError
	if err := form.Check(schema.Params(p)); errors.As(err, &fe) {
		return refused(fe.Reason)
	}
	return nil
}

// parseMoney reads the protocol's money: a decimal with at most two
// decimals, no sign, exponent, spaces or leading zeros (schema.ParseAmount),
// the amount in CNY, the protocol having no currency.
func parseMoney(s string) (schema.Amount, error) {
	a, err := schema.ParseAmount(s)
	if err != nil {
		return 0, refused("money must be a positive decimal with at most 2 decimals, such as 10 or 10.50")
	}
	return a, nil
}

// required names the first of names p lacks, in the protocol's words.
func required(p Params, names ...string) error {
	for _, n := range names {
		if p[n] == "" {
			return refused(fmt.Sprintf("%s is required", n))
		}
	}
	return nil
}

// checkText bounds the free texts the order keeps.
func checkText(p Params) error {
	for _, t := range []struct {
		name string
		max  int
	}{{"name", maxName}, {"param", MaxParam}} {
		v := p[t.name]
		if !utf8.ValidString(v) || utf8.RuneCountInString(v) > t.max {
			return refused(fmt.Sprintf("%s must be valid UTF-8 of at most %d characters", t.name, t.max))
		}
	}
	return nil
}

// checkClientIP accepts mapi.php's clientip: the payer's address, kept on
// the order (not compared with the request's: the merchant's server sends
// the call).
func checkClientIP(s string) error {
	if _, err := netip.ParseAddr(s); err != nil {
		return refused("clientip must be an IP address")
	}
	return nil
}
