package epay

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Params is one request's flat parameter set as received (query string or
// form), each value as its sender wrote it.
type Params map[string]string

// SignBase is the string the protocol hashes before the key is appended:
// every parameter but sign and sign_type whose value is not empty, sorted by
// name in byte order, joined as name=value with &, nothing URL-encoded. It
// is SPEC.md's rule (schema.SignBase) over the non-empty values only: SPEC
// keeps empty values, the plugins in the field leave them out, and each door
// keeps its own.
func SignBase(p Params) string {
	kept := make(schema.Params, len(p))
	for k, v := range p {
		if v != "" {
			kept[k] = v
		}
	}
	return schema.SignBase(kept)
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
