package audit

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paygate/gateway/platform"
)

// TestText: free text is trimmed; not UTF-8, a control character or more
// characters than the bound is a KindInvalidParameter refusal; text it
// accepts always fits a detail.
func TestText(t *testing.T) {
	tests := []struct {
		name  string
		v     string
		limit int
		want  string // "": refused
	}{
		{"plain", "  chargebacks ", 0, "chargebacks"},
		{"empty is empty", "   ", 0, ""},
		{"256 four-byte characters fit a detail", strings.Repeat("𝄞", MaxText), 0, strings.Repeat("𝄞", MaxText)},
		{"not UTF-8", "no-trace\xff", 0, ""},
		{"control character", "a\x1bb", 0, ""},
		{"newline", "a\nb", 0, ""},
		{"over the bound", strings.Repeat("é", MaxText+1), 0, ""},
		{"over a smaller bound", strings.Repeat("a", 81), 80, ""},
		{"a bound above MaxText is MaxText", strings.Repeat("a", MaxText+1), 1000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Text("reason", tt.v, tt.limit)
			refused := tt.want == "" && strings.TrimSpace(tt.v) != ""
			if refused {
				if err == nil || platform.KindOf(err) != platform.KindInvalidParameter {
					t.Fatalf("Text = %q, %v; want a KindInvalidParameter refusal", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Text = %q, %v; want %q", got, err, tt.want)
			}
			e := good()
			e.Details["reason"] = got
			if err := e.Validate(); err != nil {
				t.Fatalf("accepted text fails Validate: %v", err)
			}
		})
	}
}

// TestClip: text from outside always becomes a detail Validate takes, cut
// on a character boundary.
func TestClip(t *testing.T) {
	for name, v := range map[string]string{
		"not UTF-8":               "refused\xff\xfe",
		"control characters":      "a\x00b\nc",
		"long, cut mid-character": strings.Repeat("é", 200),
		"longer than a detail":    strings.Repeat("x", 5000),
	} {
		t.Run(name, func(t *testing.T) {
			got := Clip(v, 301)
			e := good()
			e.Details["error"] = got
			if len(got) > 301 || !utf8.ValidString(got) || strings.ContainsAny(got, "\x00\n") || e.Validate() != nil {
				t.Fatalf("Clip = %q (%d bytes)", got, len(got))
			}
		})
	}
}

// TestCheckIsABadRequest: an entry Check refuses is the request's fault
// (400), still ErrInvalid underneath.
func TestCheckIsABadRequest(t *testing.T) {
	e := good()
	e.Details["reason"] = "x\xff"
	err := e.Check()
	if platform.KindOf(err) != platform.KindInvalidParameter || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Check: %v", err)
	}
	g := good()
	if err := g.Check(); err != nil {
		t.Fatalf("a good entry: %v", err)
	}
}
