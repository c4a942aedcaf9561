package client

import (
	"crypto/md5"
	"encoding/hex"
	"sort"
	"strings"
)

// SignBase is the string a sign is the MD5 of, before the key is appended
// (SPEC.md, Signature): every parameter but sign and sign_type, sorted by
// name in byte order, joined as name=value with &, values as they are (no
// URL encoding). A parameter that is absent is simply not in params; an
// empty value is signed as name=.
func SignBase(params map[string]string) string {
	names := make([]string, 0, len(params))
	for name := range params {
		if name == "sign" || name == "sign_type" {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(params[name])
	}
	return b.String()
}

// Sign is the MD5 sign of params with the API key appended, 32 lower-case
// hex characters.
func Sign(params map[string]string, apiKey string) string {
	sum := md5.Sum([]byte(SignBase(params) + apiKey))
	return hex.EncodeToString(sum[:])
}
