package epay

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"sort"
	"strings"
)

// Params is one request's flat parameter set as received (query string or
// form), each value as its sender wrote it.
type Params map[string]string

// SignBase is the string the protocol hashes before the key is appended:
// every parameter but sign and sign_type whose value is not empty, sorted by
// name in byte order, joined as name=value with &, nothing URL-encoded. It
// differs from SPEC.md's rule (schema.SignBase), which keeps empty values:
// each door keeps its own, as the plugins in the field compute this one.
func SignBase(p Params) string {
	names := make([]string, 0, len(p))
	for k, v := range p {
		if k == "sign" || k == "sign_type" || v == "" {
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
		b.WriteString(p[k])
	}
	return b.String()
}

// Sign is the protocol's MD5 signature of p with the merchant's key: the
// key appended to SignBase with no separator, 32 lower-case hex characters.
func Sign(p Params, key string) string {
	sum := md5.Sum([]byte(SignBase(p) + key))
	return hex.EncodeToString(sum[:])
}

// Verify compares the received sign with ours in constant time; the
// protocol's senders write lower case, and upper case is accepted as the
// same hex.
func Verify(p Params, key string) bool {
	got := strings.ToLower(p["sign"])
	want := Sign(p, key)
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}
