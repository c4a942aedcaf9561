package bdcard

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/gateway/provider"
)

// The notification's signature fields and the name under which the store
// password's MD5 joins the signed set.
const (
	fieldVerifyKey  = "verify_key"
	fieldVerifySign = "verify_sign"
	fieldPasswd     = "store_passwd"
)

// maxSignedNames bounds verify_key: a real notification names about twenty.
const maxSignedNames = 64

// passwordHash is the store password as it takes part in a signature: the
// lower-case hex MD5 of it.
func passwordHash(password string) string {
	h := md5.Sum([]byte(password))
	return hex.EncodeToString(h[:])
}

// signedNames reads verify_key: the names of the fields the provider signed,
// separated by commas. store_passwd may not be among them (it is added by
// both sides), and a name may not repeat: either would make the base string
// ambiguous.
func signedNames(verifyKey string) ([]string, error) {
	if verifyKey == "" {
		return nil, errors.New("verify_key is empty")
	}
	names := strings.Split(verifyKey, ",")
	if len(names) > maxSignedNames {
		return nil, fmt.Errorf("verify_key names %d fields, more than %d", len(names), maxSignedNames)
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		switch {
		case n == "":
			return nil, errors.New("verify_key names an empty field")
		case n == fieldPasswd || n == fieldVerifyKey || n == fieldVerifySign: // secaudit:not-secret: field names
			return nil, fmt.Errorf("verify_key names %s", n)
		case seen[n]:
			return nil, fmt.Errorf("verify_key names %s twice", n)
		}
		seen[n] = true
	}
	return names, nil
}

// SignBase is the string the provider hashes: the fields named in verify_key
// plus store_passwd (the MD5 of the store password), sorted by name in byte
// order, joined as name=value with &, values exactly as received, nothing
// encoded. A named field that is absent makes no base.
func SignBase(fields map[string]string, password string) (string, error) {
	names, err := signedNames(fields[fieldVerifyKey])
	if err != nil {
		return "", err
	}
	names = append(names, fieldPasswd)
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		v, ok := fields[n]
		if n == fieldPasswd { // secaudit:not-secret: a field name
			v, ok = passwordHash(password), true
		}
		if !ok {
			return "", fmt.Errorf("verify_key names %s, which is absent", n)
		}
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String(), nil
}

// signBase is the MD5 of a base string in lower-case hex.
func signBase(base string) string {
	h := md5.Sum([]byte(base))
	return hex.EncodeToString(h[:])
}

// VerifySign checks verify_sign against the fields named in verify_key; an
// error wraps provider.ErrSignature. It says nothing of the fields that are
// not named: the caller must check that what it reads is signed.
func VerifySign(fields map[string]string, password string) error {
	got, ok := fields[fieldVerifySign]
	if !ok || got == "" {
		return fmt.Errorf("no verify_sign: %w", provider.ErrSignature)
	}
	base, err := SignBase(fields, password)
	if err != nil {
		return fmt.Errorf("%w: %w", provider.ErrSignature, err)
	}
	want := signBase(base)
	if subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToLower(got))) != 1 {
		return fmt.Errorf("verify_sign does not match: %w", provider.ErrSignature)
	}
	return nil
}

// Sign sets verify_key (the names given, in that order) and verify_sign on
// fields, as the provider does before it sends a notification.
func Sign(fields map[string]string, names []string, password string) error {
	fields[fieldVerifyKey] = strings.Join(names, ",")
	base, err := SignBase(fields, password)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	fields[fieldVerifySign] = signBase(base)
	return nil
}

// requireSigned refuses a notification whose signature does not cover the
// fields we act on: a valid signature over other fields proves nothing of
// these.
func requireSigned(fields map[string]string, need ...string) error {
	names, err := signedNames(fields[fieldVerifyKey])
	if err != nil {
		return fmt.Errorf("%w: %w", provider.ErrSignature, err)
	}
	for _, n := range need {
		if !slices.Contains(names, n) {
			return fmt.Errorf("%s is not signed: %w", n, provider.ErrSignature)
		}
	}
	return nil
}
