package dispatcher

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paygate/gateway/schema"
)

// FuzzAcknowledged checks the acknowledgement rule on any answer: only a
// 2xx can acknowledge; white space around the body never changes the
// verdict; anything else next to "success" takes it away; an acknowledged
// body is "success" in some letter case.
func FuzzAcknowledged(f *testing.F) {
	for _, seed := range []struct {
		status int
		body   string
	}{{200, "success"}, {200, " SUCCESS\r\n"}, {204, "Success"}, {299, "\tsuccess\v\f"}, {300, "success"},
		{199, "success"}, {200, "success!"}, {200, "\"success\""}, {200, "ſuccess"}, {200, "success\x00"},
		{200, "\u00a0success"}, {500, ""}, {200, ""}, {-1, "success"}} {
		f.Add(seed.status, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		ack := acknowledged(status, body)
		if ack && (status < 200 || status > 299) {
			t.Fatalf("HTTP %d acknowledged", status)
		}
		if ack && !strings.EqualFold(strings.Trim(string(body), " \t\r\n\v\f"), "success") {
			t.Fatalf("%q acknowledged", body)
		}
		if ack && len(strings.Trim(string(body), " \t\r\n\v\f")) != len("success") {
			t.Fatalf("%q acknowledged: not seven letters", body)
		}
		padded := append(append([]byte(" \r\n"), body...), "\t\n"...)
		if acknowledged(status, padded) != ack {
			t.Fatalf("white space around %q changed the verdict", body)
		}
		if acknowledged(status, append(append([]byte{}, body...), 'x')) {
			t.Fatalf("%q followed by x acknowledged", body)
		}
	})
}

// FuzzCallbackSignature checks the webhook body on any parameter set and
// key: the stored form (and the older JSON form) signed with signForm
// decodes to the same parameters, its sign verifies with the key the way
// SPEC.md tells merchants to verify (schema.VerifySign on the decoded
// values), and fails with another key or with one digit changed.
func FuzzCallbackSignature(f *testing.F) {
	f.Add("paymentId=P20261121223320000000000000000005&amount=100.50&currency=CNY&status=2&status_str=paid&"+
		"paymentMethod=wallet_a&createdAt=2026-11-21+22%3A33%3A20&description=%E8%AE%A2%E5%8D%95+%2342+%26+more", "k3y", uint8(3))
	f.Add("a=%3D%26%3D&b=+%2B+&c=%25zz&d=", "", uint8(31))
	f.Fuzz(func(t *testing.T, query, key string, pos uint8) {
		in, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		p := schema.Params{}
		for k := range in {
			if k != "sign" && k != "sign_type" {
				p[k] = in.Get(k)
			}
		}
		if len(p) == 0 {
			return // a callback always has its fixed fields
		}
		stored := encodeCallback(p)
		// The older JSON form cannot hold invalid UTF-8 (encoding/json
		// writes U+FFFD), so only valid text must read back the same.
		if asJSON, _ := json.Marshal(p); validUTF8(p) {
			if old, err := storedForm(string(asJSON)); err != nil || old != stored {
				t.Fatalf("JSON-stored %s reads as %q (%v), want %q", asJSON, old, err, stored)
			}
		}
		body, err := signForm(stored, key)
		if err != nil {
			t.Fatalf("signForm(%q): %v", stored, err)
		}
		got, err := url.ParseQuery(body)
		if err != nil {
			t.Fatalf("body %q does not parse: %v", body, err)
		}
		sign := got.Get("sign")
		if got.Get("sign_type") != "MD5" || len(got["sign"]) != 1 {
			t.Fatalf("body %q: sign and sign_type", body)
		}
		back := schema.Params{}
		for k := range got {
			back[k] = got.Get(k)
		}
		delete(back, "sign")
		delete(back, "sign_type")
		if len(back) != len(p) {
			t.Fatalf("body %q has %d parameters, want %d", body, len(back), len(p))
		}
		for k, v := range p {
			if back[k] != v {
				t.Fatalf("%s=%q arrived as %q", k, v, back[k])
			}
		}
		if !schema.VerifySign(back, key, sign) {
			t.Fatalf("the merchant cannot verify %q with its key", body)
		}
		if schema.VerifySign(back, key+"x", sign) {
			t.Fatal("verified with another key")
		}
		b := []byte(sign)
		i := int(pos) % len(b)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		if schema.VerifySign(back, key, string(b)) {
			t.Fatalf("sign with digit %d changed verified", i)
		}
	})
}

func validUTF8(p schema.Params) bool {
	for k, v := range p {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	return true
}
