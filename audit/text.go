package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paygate/gateway/platform"
)

// MaxText bounds a free-text value a person types (a reason, a note, a
// name) in characters. A character is at most 4 bytes in UTF-8, so text
// within it always fits a detail's maxDetail bytes: cleaned text can never
// be what makes an entry fail Validate after its change was made.
const MaxText = 256

// Text is a person's free text (a console form field, a CLI flag) as an
// action and its audit entry may take it: trimmed, and refused with a
// KindInvalidParameter error naming field when it is not valid UTF-8,
// holds a control character, or is longer than limit characters (limit <=
// 0 or above MaxText: MaxText). Every audited form and command reads its
// free text through here before it changes anything, so a bad value is a
// 400 (or the CLI's error) with nothing done.
func Text(field, v string, limit int) (string, error) {
	if limit <= 0 || limit > MaxText {
		limit = MaxText
	}
	v = strings.TrimSpace(v)
	switch {
	case !utf8.ValidString(v):
		return "", platform.Errorf(platform.KindInvalidParameter, "%s is not valid text (UTF-8)", field)
	case strings.ContainsFunc(v, unicode.IsControl):
		return "", platform.Errorf(platform.KindInvalidParameter, "%s must not hold control characters", field)
	case utf8.RuneCountInString(v) > limit:
		return "", platform.Errorf(platform.KindInvalidParameter, "%s must be at most %d characters", field, limit)
	}
	return v, nil
}

// Check is Validate for an entry built before the change it records: a
// refusal here means nothing has been changed, and it is the request's
// fault (a value the entry cannot keep), so it is a KindInvalidParameter
// error (400) rather than an internal one. Every audited action checks its
// entry this way before it acts; what it adds after the change (an
// outcome's status or count) is a word or number the gateway made.
func (e *Entry) Check() error {
	if err := e.Validate(); err != nil {
		return &platform.Error{Kind: platform.KindInvalidParameter, Msg: "a value of this action is too long or not valid text", Err: err}
	}
	return nil
}

// Clip is text from outside (a provider's error or reference) recorded
// after the change it came back from, when refusing is no longer possible:
// invalid bytes and control characters become U+FFFD and a space, and it
// is cut to at most limit bytes (at most maxDetail) on a character
// boundary, so the entry that keeps it still passes Validate.
func Clip(s string, limit int) string {
	if limit <= 0 || limit > maxDetail {
		limit = maxDetail
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) > limit {
		s = s[:limit]
		for !utf8.ValidString(s) { // only the last character can be cut
			s = s[:len(s)-1]
		}
	}
	return s
}
