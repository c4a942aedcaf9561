package checkout

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/paygate/gateway/schema"
)

// MethodNames are the payer-facing names of methods a deployment sets,
// by language then method: the real brand a payer knows where the
// catalogue only has a neutral word ("Wallet A"). A language without its
// own name for a method takes the English one, then the catalogue's.
type MethodNames map[string]map[schema.Method]string

// ParseMethodNames reads GATEWAY_METHOD_NAMES: the JSON itself (it starts
// with "{") or the path of a file holding it, e.g.
// {"en": {"wallet_a": "Alipay"}, "zh": {"wallet_a": "支付宝"}}.
func ParseMethodNames(v string) (MethodNames, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	raw := []byte(v)
	if !strings.HasPrefix(v, "{") {
		b, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("method names file: %w", err)
		}
		raw = b
	}
	var n MethodNames
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("method names: want {\"<lang>\": {\"<method>\": \"<name>\"}}: %w", err)
	}
	return n, n.validate()
}

// validate refuses a language or method we do not have, and a name a page
// cannot show (empty, over 40 characters, or with control characters).
func (n MethodNames) validate() error {
	for lang, names := range n {
		if !slices.Contains(schema.Langs, lang) {
			return fmt.Errorf("method names: unknown language %q (one of %v)", lang, schema.Langs)
		}
		for m, name := range names {
			if !slices.Contains(schema.AllMethods(), m) {
				return fmt.Errorf("method names: %s: unknown method %q", lang, m)
			}
			if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > 40 || strings.ContainsFunc(name, isControl) {
				return fmt.Errorf("method names: %s %s: %q is empty, longer than 40 characters or holds control characters", lang, m, name)
			}
		}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// name is the deployment's name of m in lang, or "".
func (n MethodNames) name(lang string, m schema.Method) string {
	if s := n[lang][m]; s != "" {
		return s
	}
	return n["en"][m]
}
