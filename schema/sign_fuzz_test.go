package schema

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSignVerify checks SPEC.md's signature on any parameter set and key,
// seeded with the shared vectors: a set signed with a key verifies with it
// (in either letter case) and with no other key; a signature with one hex
// digit changed fails; changing the signed string fails; sign and
// sign_type are never signed; a third argument verifies only when it is
// the signature (TestSignVectors pins the vectors' own values).
func FuzzSignVerify(f *testing.F) {
	for _, v := range loadVectors(f) {
		form := url.Values{}
		for k, val := range v.Params {
			if val != nil {
				form.Set(k, *val)
			}
		}
		f.Add(form.Encode(), v.Key, v.Sign, uint8(len(v.Name)))
	}
	f.Add("a=1&b=%26c%3D2", "k", "", uint8(0))
	f.Fuzz(func(t *testing.T, query, key, want string, pos uint8) {
		form, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		p := Params{}
		for k := range form {
			p[k] = form.Get(k)
		}
		sign := Sign(p, key)
		// Hex digits compare without regard to letter case, so a mixed-case
		// rendering of the signature is the signature.
		if want != "" && !strings.EqualFold(sign, want) && VerifySign(p, key, want) {
			t.Fatalf("%q verified although it is not %q", want, sign)
		}
		if !VerifySign(p, key, sign) || !VerifySign(p, key, strings.ToUpper(sign)) {
			t.Fatalf("own signature %s refused", sign)
		}
		if VerifySign(p, key+"x", sign) {
			t.Fatal("signature verified with another key")
		}
		if VerifySign(p, key, mutateHex(sign, int(pos)%len(sign))) {
			t.Fatalf("signature with digit %d changed verified", int(pos)%len(sign))
		}
		if VerifySign(p, key, sign[:len(sign)-1]) || VerifySign(p, key, sign+"0") || VerifySign(p, key, "") {
			t.Fatal("a signature of the wrong length verified")
		}
		changed := Params{"sign": "x", "sign_type": "RSA"}
		for k, v := range p {
			changed[k] = v
		}
		if Sign(changed, key) != sign {
			t.Fatal("sign or sign_type is part of the signed string")
		}
		changed["zz_extra"+key] = "1"
		if SignBase(changed) != SignBase(p) && VerifySign(changed, key, sign) {
			t.Fatal("a different signed string verified")
		}
	})
}

// mutateHex changes the hex digit at i to another one.
func mutateHex(s string, i int) string {
	b := []byte(s)
	if b[i] == '0' {
		b[i] = '1'
	} else {
		b[i] = '0'
	}
	return string(b)
}
