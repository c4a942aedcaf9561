package cryptopsp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"strings"
)

var (
	errNoSignature  = errors.New("no signature header")
	errBadSignature = errors.New("signature does not match the body")
)

// Canonical is the form the provider signs: the body re-serialised as
// compact JSON with object keys sorted at every level and numbers kept as
// their literal (non-ASCII characters as UTF-8).
func Canonical(body []byte) ([]byte, error) {
	o, err := DecodeObject(body)
	if err != nil {
		return nil, err
	}
	return canonical(o, false), nil
}

// Sign is the IPN signature: lower-case hex HMAC-SHA512 of the canonical
// form under the IPN secret.
func Sign(secret string, signedForm []byte) string {
	m := hmac.New(sha512.New, []byte(secret))
	m.Write(signedForm)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifySignature parses the body and checks sig against its canonical
// form, returning the parsed object so that the fields read are the ones
// that were signed. A body with non-ASCII text is also tried with \u
// escapes, since serialisers differ there; either form proves the secret
// (both are functions of the same parsed fields).
// A body that is not a JSON object is errMalformedBody.
func VerifySignature(secret string, body []byte, sig string) (Object, error) {
	o, err := DecodeObject(body)
	if err != nil {
		return nil, errors.Join(errMalformedBody, err)
	}
	sig = strings.TrimSpace(sig)
	if sig == "" {
		return nil, errNoSignature
	}
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha512.Size {
		return nil, errBadSignature
	}
	forms := [][]byte{canonical(o, false)}
	if a := canonical(o, true); !bytes.Equal(a, forms[0]) { // secaudit:not-secret: two spellings of the public body, no MAC
		forms = append(forms, a)
	}
	for _, f := range forms {
		m := hmac.New(sha512.New, []byte(secret))
		m.Write(f)
		if hmac.Equal(got, m.Sum(nil)) {
			return o, nil
		}
	}
	return nil, errBadSignature
}

var errMalformedBody = errors.New("body is not a JSON object")
