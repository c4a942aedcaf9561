package epay

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Types maps the protocol's payment type words to our method codes. The
// words are whatever the merchants' plugins send; the operator names them
// (GATEWAY_EPAY_TYPES), so neither code nor docs carry a brand.
type Types struct {
	byWord map[string]schema.Method
	words  []string // in the order configured, for listings
}

var typeWord = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// ParseTypes reads "word=method,word=method": each word once, each method a
// known code. An empty string is no mapping (the door then knows no type).
func ParseTypes(s string) (Types, error) {
	t := Types{byWord: map[string]schema.Method{}}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		word, code, ok := strings.Cut(pair, "=")
		word, code = strings.TrimSpace(word), strings.TrimSpace(code)
		m := schema.Method(code)
		switch {
		case !ok:
			return Types{}, fmt.Errorf("epay type %q: want word=method", pair)
		case !typeWord.MatchString(word):
			return Types{}, fmt.Errorf("epay type word %q: want 1 to 32 of a-z 0-9 _", word)
		case !m.Known():
			return Types{}, fmt.Errorf("epay type %s: %q is not a method code", word, code)
		case slices.Contains(t.words, word):
			return Types{}, fmt.Errorf("epay type word %s is mapped twice", word)
		}
		t.byWord[word] = m
		t.words = append(t.words, word)
	}
	return t, nil
}

// Method is the method a type word stands for.
func (t Types) Method(word string) (schema.Method, bool) {
	m, ok := t.byWord[word]
	return m, ok
}

// Word is the first word configured for m: what a notification names as
// the order's type when the order was made without one (the payer chose).
func (t Types) Word(m schema.Method) (string, bool) {
	for _, w := range t.words {
		if t.byWord[w] == m {
			return w, true
		}
	}
	return "", false
}

// Words are the configured words in their order.
func (t Types) Words() []string { return slices.Clone(t.words) }

// String is the mapping in ParseTypes' form.
func (t Types) String() string {
	parts := make([]string, len(t.words))
	for i, w := range t.words {
		parts[i] = w + "=" + string(t.byWord[w])
	}
	return strings.Join(parts, ",")
}

// TypeSource gives the mapping in force: the operator may change it while
// the gateway serves (the operator console), so a door asks per request.
type TypeSource interface {
	Types(ctx context.Context) (Types, error)
}

// Static is a mapping that never changes (GATEWAY_EPAY_TYPES alone).
type Static Types

// Types is the fixed mapping.
func (s Static) Types(context.Context) (Types, error) { return Types(s), nil }
