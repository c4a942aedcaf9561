package cryptopsp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

type vectorCase struct {
	Name       string `json:"name"`
	Body       string `json:"body"`
	SignedForm string `json:"signed_form"`
	Signature  string `json:"signature"`
	Valid      bool   `json:"valid"`
	Pays       bool   `json:"pays"`
}

type vectorFamily struct {
	IPNSecret string       `json:"ipn_secret"`
	Cases     []vectorCase `json:"cases"`
}

// loadVectors reads this family's cases from the shared vectors file.
func loadVectors(t testing.TB) vectorFamily {
	t.Helper()
	var f vectorFamily
	providertest.Family(t, "cryptopsp", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no cryptopsp vectors")
	}
	return f
}

func TestSignatureVectors(t *testing.T) {
	f := loadVectors(t)
	for _, tc := range f.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			form, err := Canonical([]byte(tc.Body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.SignedForm != "" && string(form) != tc.SignedForm {
				t.Fatalf("signed form\n got %s\nwant %s", form, tc.SignedForm)
			}
			if tc.SignedForm != "" && Sign(f.IPNSecret, []byte(tc.SignedForm)) != tc.Signature {
				t.Fatal("Sign of the signed form differs from the vector")
			}
			_, err = VerifySignature(f.IPNSecret, []byte(tc.Body), tc.Signature)
			if tc.Valid != (err == nil) {
				t.Fatalf("valid %v, err %v", tc.Valid, err)
			}
		})
	}
}

func TestVerifyVectors(t *testing.T) {
	f := loadVectors(t)
	a := newTestAdapter(t, f.IPNSecret)
	for _, tc := range f.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			h := http.Header{}
			h.Set("x-cryptopsp-sig", tc.Signature)
			n, err := a.Verify(context.Background(), &provider.Request{Header: h, Body: []byte(tc.Body), Path: NotifyPath})
			if !tc.Valid {
				if !errors.Is(err, provider.ErrSignature) {
					t.Fatalf("err %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pays := n.Outcome == provider.OutcomePaid; pays != tc.Pays {
				t.Fatalf("outcome %v, pays %v", n.Outcome, tc.Pays)
			}
			if n.OrderID != "P20261123101500cc0ab12cd34ef56ab78cd90" || n.Ref != "5077125051" {
				t.Fatalf("order %q ref %q", n.OrderID, n.Ref)
			}
			if tc.Pays && n.Paid != (provider.Money{Amount: 100_00, Currency: "USD"}) {
				t.Fatalf("paid %+v", n.Paid)
			}
			if !tc.Pays && (n.Outcome != provider.OutcomePartial || !n.Paid.IsZero()) {
				t.Fatalf("not paying case: %v %+v", n.Outcome, n.Paid)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"nested keys sorted", `{"b": {"z": 1, "a": [ {"y":2,"x":1} ]}, "a": null}`, `{"a":null,"b":{"a":[{"x":1,"y":2}],"z":1}}`},
		{"number literals kept", `{"a": 1.50, "b": 1e-05, "c": -0, "d": 100}`, `{"a":1.50,"b":1e-05,"c":-0,"d":100}`},
		{"strings escaped, non-ASCII kept", `{"s": "a\"b\\c\n\u0001/é€"}`, `{"s":"a\"b\\c\n\u0001/é€"}`},
		{"booleans", `{"t": true, "f": false}`, `{"f":false,"t":true}`},
		{"empty containers", `{"o": {}, "a": []}`, `{"a":[],"o":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestVerifySignatureAcceptsEitherEscaping(t *testing.T) {
	body := []byte(`{"order_description": "Café 😀", "payment_id": 1}`)
	tests := []struct {
		name, form string
	}{
		{"UTF-8 as written", `{"order_description":"Café 😀","payment_id":1}`},
		{"escaped to ASCII", `{"order_description":"Caf\u00e9 \ud83d\ude00","payment_id":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := VerifySignature("k", body, Sign("k", []byte(tt.form))); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct{ name, body string }{
		{"duplicate key", `{"a":1,"a":2}`},
		{"not an object", `[1,2]`},
		{"trailing data", `{"a":1} {"b":2}`},
		{"truncated", `{"a":`},
		{"too deep", string(bytes.Repeat([]byte(`{"a":`), 40)) + "1" + string(bytes.Repeat([]byte(`}`), 40))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Canonical([]byte(tt.body)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
