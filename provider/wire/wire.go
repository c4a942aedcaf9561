// Package wire is what several provider families do the same way with
// what crosses the wire: reading a form notification within bounds,
// reading a JSON answer that may write a value as a string or a number,
// telling an unreadable answer from a refusal, keeping credentials out of
// error texts, and bounding what we quote or pass on.
//
// It holds mechanics only. What a field means, which bounds a protocol
// needs and which sentinel (provider.ErrMalformed, ErrSignature) an error
// becomes stay with each family.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
)

// Limits bounds a form we read; zero is no bound.
type Limits struct {
	Body   int // bytes of a body we parse ourselves (a form the gateway parsed is bounded by it)
	Fields int // fields
	Len    int // bytes of a field's name or value
}

// Form is a form request's fields, one value per name: the form the
// gateway parsed, else the body's. A repeated name is refused, because
// which of its values the provider signed would be a guess. Errors carry
// no sentinel: the caller says whether a bad form is malformed or forged.
func Form(r *provider.Request, lim Limits) (map[string]string, error) {
	form := r.Form
	if form == nil {
		if lim.Body > 0 && len(r.Body) > lim.Body {
			return nil, fmt.Errorf("body of %d bytes, more than %d", len(r.Body), lim.Body)
		}
		var err error
		if form, err = url.ParseQuery(string(r.Body)); err != nil {
			return nil, fmt.Errorf("form body: %w", err)
		}
	}
	if lim.Fields > 0 && len(form) > lim.Fields {
		return nil, fmt.Errorf("%d fields, more than %d", len(form), lim.Fields)
	}
	out := make(map[string]string, len(form))
	for k, vs := range form {
		if len(vs) != 1 {
			return nil, fmt.Errorf("field %.32q given %d times", k, len(vs))
		}
		if lim.Len > 0 && (len(k) > lim.Len || len(vs[0]) > lim.Len) {
			return nil, fmt.Errorf("field %.32q longer than %d", k, lim.Len)
		}
		out[k] = vs[0]
	}
	return out, nil
}

// maxIDLen bounds an identifier we pass on or look up.
const maxIDLen = 64

// CheckID accepts an identifier we pass on to a provider or look up there:
// at most 64 bytes, of characters that need no escaping anywhere.
func CheckID(name, v string) error {
	if v == "" || len(v) > maxIDLen {
		return fmt.Errorf("%s: missing or longer than %d", name, maxIDLen)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:", c) >= 0) {
			return fmt.Errorf("%s: unexpected character", name)
		}
	}
	return nil
}

// IsRef reports a provider's id we put into a URL path: 1 to 64 letters,
// digits, '-' and '_', so that it needs no escaping and names nothing else.
func IsRef(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Text is a JSON value the provider may write as a string or a number
// ("risk_level": "0" or 0); we keep its literal either way, and null is
// empty.
type Text string

// UnmarshalJSON keeps the string's value or the number's literal.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Text(s)
	case bytes.Equal(b, []byte("null")):
		*t = ""
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*t = Text(n)
	}
	return nil
}

// ErrAnswer marks a provider answer we cannot read. It comes with
// provider.ErrUnavailable: a provider that answers nonsense is treated as
// one that is down, not as one that refused.
var ErrAnswer = errors.New("unreadable answer")

// DecodeJSON reads a provider's JSON answer into v; what does not decode
// wraps ErrAnswer and provider.ErrUnavailable.
func DecodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %w: %w", ErrAnswer, provider.ErrUnavailable, err)
	}
	return nil
}

// scrubbed is an error whose text has secrets taken out; it still wraps
// the original, so errors.Is sees the same sentinels.
type scrubbed struct {
	msg string
	err error
}

func (s scrubbed) Error() string { return s.msg }
func (s scrubbed) Unwrap() error { return s.err }

// Scrub takes secrets (as written and query-escaped) out of err's text.
// Providers that take a credential in a query string need it: the HTTP
// client puts the URL into its errors, and errors reach logs and the
// notification records.
func Scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg, changed := err.Error(), false
	for _, s := range secrets {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, s, "REDACTED")
		msg = strings.ReplaceAll(msg, url.QueryEscape(s), "REDACTED")
		changed = true
	}
	if !changed {
		return err
	}
	return scrubbed{msg: msg, err: err}
}

// Clip bounds a text we pass on or quote from a provider to n characters
// (runes, so that a cut never splits one).
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// OrDefault is s, or d when s is blank: for the fields a provider requires
// that an order may leave empty.
func OrDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// CheckURL accepts an absolute http or https URL: a provider's base a
// configuration names.
func CheckURL(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}
