package schema

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"sort"
	"strings"
)

// Params is a request's flat parameter set as received: each value is the
// literal the sender wrote (a JSON number keeps its spelling), and a parameter
// that was null or absent is simply not in the map.
type Params map[string]string

// SignBase is the string SPEC.md hashes before the key is appended: every
// parameter but sign and sign_type, sorted by name in byte order, joined as
// name=value with &, nothing URL-encoded.
func SignBase(p Params) string {
	names := make([]string, 0, len(p))
	size := 0
	for k, v := range p {
		if k == "sign" || k == "sign_type" {
			continue
		}
		names = append(names, k)
		size += len(k) + len(v) + 2
	}
	sort.Strings(names)
	var b strings.Builder
	b.Grow(size)
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

// Sign computes SPEC.md's MD5 signature of p with the merchant's API key.
func Sign(p Params, apiKey string) string {
	h := md5.New()
	h.Write([]byte(SignBase(p)))
	h.Write([]byte(apiKey))
	return hex.EncodeToString(h.Sum(nil))
}

// VerifySign compares in constant time so that the comparison leaks nothing of
// the expected signature. The received sign is accepted in any letter case.
func VerifySign(p Params, apiKey, got string) bool {
	want := Sign(p, apiKey)
	return subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToLower(got))) == 1
}
