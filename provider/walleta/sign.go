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
// sign and sign_type whose value is not empty, sorted by name (byte order),
// name=value joined by &, values exactly as received (form-decoded, never
// encoded again).
func NotifyBase(fields map[string]string) string {
	return baseString(fields, "sign", "sign_type")
}

// RequestBase is what we sign in a call: the same rule, but sign_type is
// signed too (only sign itself is left out), as the provider's API wants.
func RequestBase(params map[string]string) string {
	return baseString(params, "sign")
}

func baseString(fields map[string]string, skip ...string) string {
	names := make([]string, 0, len(fields))
	for k, v := range fields {
		if v == "" || contains(skip, k) {
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
	if err := rsakey.Verify(pub, []byte(NotifyBase(fields)), sig); err != nil {
		return fmt.Errorf("notification: %w", provider.ErrSignature)
	}
	return nil
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
