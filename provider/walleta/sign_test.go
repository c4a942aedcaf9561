package walleta_test

import (
	"errors"
	"net/url"
	"testing"

	walleta "github.com/paygate/gateway/provider/walleta"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/rsakey"
)

// TestNotificationVectors runs every wallet_a case of the shared vectors:
// the base string as given, the signature accepted or refused, and the
// adapter's Verify saying the same.
func TestNotificationVectors(t *testing.T) {
	v := readVectors(t)
	pub, err := rsakey.ParsePublic(v.Keys["wallet_a_provider"].PublicPEM)
	if err != nil {
		t.Fatal(err)
	}
	a := vectorAdapter(t, v)
	if len(v.Families.WalletA.Cases) == 0 {
		t.Fatal("no wallet_a cases")
	}
	for _, tc := range v.Families.WalletA.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			if got := walleta.NotifyBase(tc.Fields); got != tc.Base {
				t.Errorf("base string\n got %q\nwant %q", got, tc.Base)
			}
			err := walleta.VerifyNotification(pub, tc.Fields)
			if tc.Valid != (err == nil) {
				t.Fatalf("verifyNotification = %v, valid %v", err, tc.Valid)
			}
			form := url.Values{}
			for k, val := range tc.Fields {
				form.Set(k, val)
			}
			n, err := a.Verify(t.Context(), &provider.Request{Form: form, Body: []byte(form.Encode()), Path: "notify"})
			if !tc.Valid {
				if !errors.Is(err, provider.ErrSignature) {
					t.Fatalf("Verify = %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			checkPaid(t, n, tc.Fields["out_trade_no"], tc.Fields["total_amount"], "CNY")
			if n.Ref != tc.Fields["trade_no"] {
				t.Errorf("Ref = %q, want %q", n.Ref, tc.Fields["trade_no"])
			}
			if _, ok := n.Fields["sign"]; ok {
				t.Error("Fields keep the signature")
			}
		})
	}
}

// TestVerifyBodyOnly: a request whose form was not parsed is read from its
// body, values form-decoded as the provider sent them.
func TestVerifyBodyOnly(t *testing.T) {
	v := readVectors(t)
	a := vectorAdapter(t, v)
	tc := v.Families.WalletA.Cases[0]
	form := url.Values{}
	for k, val := range tc.Fields {
		form.Set(k, val)
	}
	n, err := a.Verify(t.Context(), &provider.Request{Body: []byte(form.Encode())})
	if err != nil {
		t.Fatal(err)
	}
	checkPaid(t, n, tc.Fields["out_trade_no"], tc.Fields["total_amount"], "CNY")
}

// TestSandboxKeysAreNotTheVectorKeys: the vectors' keys are for tests only.
func TestSandboxKeysAreNotTheVectorKeys(t *testing.T) {
	v := readVectors(t)
	for name, k := range v.Keys {
		for _, pem := range []string{walleta.SandboxAppPublicPEM, walleta.SandboxProviderPublicPEM} {
			if k.PublicPEM == pem {
				t.Errorf("a sandbox key is the vectors' %s key", name)
			}
		}
	}
}

func TestRequestBaseSignsSignType(t *testing.T) {
	p := map[string]string{"b": "2", "a": "1", "sign": "x", "sign_type": "RSA2", "empty": ""}
	if got, want := walleta.RequestBase(p), "a=1&b=2&sign_type=RSA2"; got != want {
		t.Fatalf("requestBase = %q, want %q", got, want)
	}
}
