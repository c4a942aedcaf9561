package walleta

import (
	"crypto/rsa"
	"fmt"
	"sort"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
)

// NotifyBase is what the provider signs in a notification: every field but
// sign and sign_type, empty values included, sorted by name (byte order),
// name=value joined by &, values exactly as received (form-decoded, never
// encoded again). The provider's own SDK builds its check string this way:
// a field the provider sends empty is part of what it signed, so leaving it
// out refuses a genuine notification (and the provider retries it for a
// day).
func NotifyBase(fields map[string]string) string {
	return baseString(fields, true, "sign", "sign_type")
}

// NotifyBaseCompact is the same string without the empty fields: how some
// signers (the shared vectors among them) build it. verifyNotification
// tries it only when the notification has an empty field and the exact
// string failed; an empty value carries nothing this gateway reads, so
// either reading proves the same content.
func NotifyBaseCompact(fields map[string]string) string {
	return baseString(fields, false, "sign", "sign_type")
}

// RequestBase is what we sign in a call: every field but sign whose value
// is not empty (sign_type is signed too), as the provider's API wants;
// the empty ones are not sent at all.
func RequestBase(params map[string]string) string {
	return baseString(params, false, "sign")
}

func baseString(fields map[string]string, keepEmpty bool, skip ...string) string {
	names := make([]string, 0, len(fields))
	for k, v := range fields {
		if (v == "" && !keepEmpty) || contains(skip, k) {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(fields[k])
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// SignFields is the RSA2 signature of a base string.
func SignFields(key *rsa.PrivateKey, base string) (string, error) {
	return rsakey.Sign(key, []byte(base))
}

// verifyNotification checks a notification's sign against the provider's
// public key. sign_type, when given, must be RSA2: an older or weaker scheme
// is refused rather than tried.
func verifyNotification(pub *rsa.PublicKey, fields map[string]string) error {
	sig := fields["sign"]
	if sig == "" {
		return fmt.Errorf("no sign: %w", provider.ErrSignature)
	}
	if st := fields["sign_type"]; st != "" && st != SignType {
		return fmt.Errorf("sign_type %q: %w", st, provider.ErrSignature)
	}
	if rsakey.Verify(pub, []byte(NotifyBase(fields)), sig) == nil {
		return nil
	}
	if hasEmpty(fields) && rsakey.Verify(pub, []byte(NotifyBaseCompact(fields)), sig) == nil {
		return nil
	}
	return fmt.Errorf("notification: %w", provider.ErrSignature)
}

func hasEmpty(fields map[string]string) bool {
	for k, v := range fields {
		if v == "" && k != "sign" && k != "sign_type" {
			return true
		}
	}
	return false
}

// verifyAnswer checks the sign of an API answer: the provider signs the raw
// JSON text of the answer's response node, byte for byte as sent.
func verifyAnswer(pub *rsa.PublicKey, node []byte, sig string) error {
	if sig == "" || rsakey.Verify(pub, node, sig) != nil {
		return fmt.Errorf("answer: %w", provider.ErrSignature)
	}
	return nil
}

// SignType is the only scheme we speak: RSA with SHA-256.
const SignType = "RSA2"
