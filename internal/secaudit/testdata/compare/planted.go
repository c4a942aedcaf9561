// Package planted holds comparisons of secrets in variable time (lines
// marked "want") and the harmless comparisons beside them (no mark): the
// constant-time check must flag exactly the marked lines.
package planted

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"reflect"
	"slices"
	"strings"
)

type params map[string]string

type request struct {
	Path   string
	Header map[string]string
	Body   []byte
}

const notifyPath = "/notify"

// Rule 1: == or != on an operand that names a secret.
func check(sign, expected, apiKey, other string, p params, form interface{ Get(string) string }) bool {
	if sign == expected { // want
		return true
	}
	if apiKey != other { // want
		return false
	}
	if p["sign"] == other { // want
		return true
	}
	if form.Get("signature") == other { // want
		return true
	}
	if strings.ToLower(sign) == other { // want
		return true
	}
	// presence and length checks leak nothing
	if sign == "" || apiKey != "" || len(sign) == 0 || p["sign"] == "" {
		return false
	}
	if sign == other { // secaudit:not-secret planted waiver: the field's name
		return true
	}
	signType := other
	return signType == "MD5" && subtle.ConstantTimeCompare([]byte(sign), []byte(expected)) == 1
}

// Rule 2: inside a function that checks a secret, any == of two values.
func verifySign(want, got string) bool {
	if want == "MD5" { // a literal: a field's name or a fixed value
		return false
	}
	return want == got // want
}

// Rule 3: library comparisons that stop at the first difference, on a
// secret.
func compareLib(sig, token, secret, mac, a, b []byte) bool {
	return bytes.Equal(sig, a) || // want
		strings.EqualFold(string(token), "x") || // want
		reflect.DeepEqual(secret, b) || // want
		slices.Equal(mac, a) || // want
		bytes.Equal(a, b) // not a secret, not in a verifier
}

// Rule 4: inside a verifier of MACs or signatures, a library
// comparison of any two values, and == on a MAC-like value.
type adapter struct{ key []byte }

func (x *adapter) Verify(r *request) bool {
	if r.Path != notifyPath { // routing, not a MAC
		return false
	}
	m := hmac.New(sha256.New, x.key)
	m.Write(r.Body)
	want := m.Sum(nil)
	got, _ := hex.DecodeString(r.Header["X-Sig"])
	if bytes.Equal(want, got) { // want
		return true
	}
	if hex.EncodeToString(want) == r.Header["X-Sig"] { // want
		return true
	}
	if string(m.Sum(nil)) == string(got) { // want
		return true
	}
	computed := hex.EncodeToString(want)
	if computed != r.Header["X-Other"] { // want
		return false
	}
	return hmac.Equal(want, got)
}

func checkHMAC(a, b []byte) bool {
	return bytes.Compare(a, b) == 0 // want
}
