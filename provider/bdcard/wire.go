package bdcard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
)

// Bounds of what we read from a notification.
const (
	maxFields   = 100
	maxValueLen = 1024
	maxIDLen    = 64
)

// checkID accepts a transaction or validation id we pass on or look up:
// bounded, and of characters that need no escaping anywhere.
func checkID(name, v string) error {
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

// formFields is a form notification as one value per name. A repeated name
// is refused: which of its values was signed would be a guess.
func formFields(r *provider.Request) (map[string]string, error) {
	form := r.Form
	if form == nil {
		var err error
		if form, err = url.ParseQuery(string(r.Body)); err != nil {
			return nil, fmt.Errorf("form body: %w", err)
		}
	}
	if len(form) > maxFields {
		return nil, fmt.Errorf("%d fields, more than %d", len(form), maxFields)
	}
	out := make(map[string]string, len(form))
	for k, vs := range form {
		if len(vs) != 1 {
			return nil, fmt.Errorf("field %s given %d times", k, len(vs))
		}
		if len(k) > maxValueLen || len(vs[0]) > maxValueLen {
			return nil, fmt.Errorf("field %.32s longer than %d", k, maxValueLen)
		}
		out[k] = vs[0]
	}
	return out, nil
}

// text is a JSON value the provider may write as a string or a number; we
// keep its literal either way ("risk_level": "0" or 0).
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	case bytes.Equal(b, []byte("null")):
		*t = ""
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*t = text(n)
	}
	return nil
}

// scrubbed is an error whose text has the store password taken out: the
// validation and query calls carry it in their query string, and the HTTP
// client puts the URL into its errors.
type scrubbed struct {
	msg string
	err error
}

func (s scrubbed) Error() string { return s.msg }
func (s scrubbed) Unwrap() error { return s.err }

func scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range secrets {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, s, "REDACTED")
		msg = strings.ReplaceAll(msg, url.QueryEscape(s), "REDACTED")
	}
	return scrubbed{msg: msg, err: err}
}

// errAnswer marks an answer we cannot read; the provider is as good as down.
var errAnswer = errors.New("unreadable answer")

func decodeAnswer(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %w: %w", provider.ErrUnavailable, errAnswer, err)
	}
	return nil
}

// clip bounds a text we pass on or quote from the provider.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
