package channel

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Default is the channel of a method configured in the one-object form,
// and of every order that predates channels (schema.Order.Channel empty).
const Default = "default"

// MaxIDLen bounds a channel id: it is part of Redis keys, ledger account
// names, metric labels and notification paths.
const MaxIDLen = 32

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// ValidID reports whether id may name a channel: lower-case letters,
// digits, '_' and '-', starting with a letter or digit. Nothing else can
// reach a key, a path or a page, so markup in an id is refused at the door.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// CheckID is ValidID as an error an operator can act on.
func CheckID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("channel id %q: use 1 to %d of a-z, 0-9, '_' and '-', starting with a letter or digit", id, MaxIDLen)
	}
	return nil
}

// Ref names one channel: its mode (sandbox channels are the simulators'),
// its method and its id. Ids are unique per method and mode.
type Ref struct {
	Sandbox bool
	Method  schema.Method
	ID      string
}

// String is the ref as keys, account names and metric labels spell it:
// "wallet_a.default", "sandbox.wallet_a.alt".
func (r Ref) String() string {
	s := string(r.Method) + "." + r.id()
	if r.Sandbox {
		return "sandbox." + s
	}
	return s
}

func (r Ref) id() string {
	if r.ID == "" {
		return Default
	}
	return r.ID
}

// ParseRef reads a ref written by String.
func ParseRef(s string) (Ref, error) {
	var r Ref
	if rest, ok := strings.CutPrefix(s, "sandbox."); ok {
		r.Sandbox, s = true, rest
	}
	m, id, ok := strings.Cut(s, ".")
	if !ok || !schema.Method(m).Known() || !ValidID(id) {
		return Ref{}, fmt.Errorf("channel %q: want [sandbox.]<method>.<id>", s)
	}
	r.Method, r.ID = schema.Method(m), id
	return r, nil
}

// OfOrder is the channel o went to (Default before channels).
func OfOrder(o *schema.Order) Ref {
	return Ref{Sandbox: o.Sandbox, Method: o.Method, ID: orDefault(o.Channel)}
}

func orDefault(id string) string {
	if id == "" {
		return Default
	}
	return id
}

// methodKey is a method of a mode as routing keys spell it.
func methodKey(sandbox bool, m schema.Method) string {
	if sandbox {
		return "sandbox." + string(m)
	}
	return string(m)
}
