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
			if got, compact := walleta.NotifyBase(tc.Fields), walleta.NotifyBaseCompact(tc.Fields); got != tc.Base && compact != tc.Base {
				t.Errorf("base string\n got %q\n  or %q\nwant %q", got, compact, tc.Base)
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

// TestNotificationWithEmptyParameter: the provider signs every field it
// sends, empty ones included; such a notification is accepted, and the
// empty field cannot be dropped, added or filled in afterwards.
func TestNotificationWithEmptyParameter(t *testing.T) {
	key, err := rsakey.ParsePrivate(walleta.SandboxProviderPrivatePEM)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"notify_time": "2026-11-23 10:15:02", "notify_type": "trade_status_sync", "notify_id": "n1",
		"app_id": walleta.SandboxAppID, "charset": "utf-8", "version": "1.0", "sign_type": "RSA2",
		"trade_no": "2026112322001404560500000002", "out_trade_no": "P-empty", "trade_status": "TRADE_SUCCESS",
		"total_amount": "10.00", "receipt_amount": "10.00", "passback_params": "", "body": "",
	}
	// The string the provider signs, written out: every field, empty ones too.
	signed := "app_id=" + walleta.SandboxAppID + "&body=&charset=utf-8&notify_id=n1&notify_time=2026-11-23 10:15:02" +
		"&notify_type=trade_status_sync&out_trade_no=P-empty&passback_params=&receipt_amount=10.00" +
		"&total_amount=10.00&trade_no=2026112322001404560500000002&trade_status=TRADE_SUCCESS&version=1.0"
	sig, err := walleta.SignFields(key, signed)
	if err != nil {
		t.Fatal(err)
	}
	fields["sign"] = sig
	a := newAdapter(t, walleta.SandboxConfig("http://127.0.0.1:1"))
	tests := []struct {
		name   string
		change func(url.Values)
		ok     bool
	}{
		{"as sent", func(url.Values) {}, true},
		{"empty field dropped", func(f url.Values) { f.Del("body") }, false},
		{"empty field filled", func(f url.Values) { f.Set("passback_params", "x") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{}
			for k, v := range fields {
				form.Set(k, v)
			}
			tt.change(form)
			n, err := a.Verify(t.Context(), &provider.Request{Form: form, Body: []byte(form.Encode()), Path: "notify"})
			if tt.ok {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				checkPaid(t, n, "P-empty", "10.00", "CNY")
				return
			}
			if !errors.Is(err, provider.ErrSignature) {
				t.Fatalf("Verify = %v, want ErrSignature", err)
			}
		})
	}
}
