package fiatpsp_test

import (
	"encoding/json"
	"testing"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/paygate/gateway/provider/internal/providertest"
)

// vectorCase is one case of the family in provider-vectors.json.
type vectorCase struct {
	Name      string            `json:"name"`
	Fields    map[string]string `json:"fields"`
	Request   map[string]any    `json:"request"`
	Base      string            `json:"base"`
	Signature string            `json:"signature"`
	Valid     bool              `json:"valid"`
}

type vectors struct {
	Secret2 string       `json:"secret2"`
	APIKey  string       `json:"api_key"`
	Cases   []vectorCase `json:"cases"`
}

// loadVectors reads the family's vectors, numbers kept as their literal.
func loadVectors(t *testing.T) vectors {
	t.Helper()
	var v vectors
	providertest.Family(t, fiatpsp.Family, &v)
	if len(v.Cases) == 0 || v.Secret2 == "" || v.APIKey == "" {
		t.Fatal("no fiatpsp vectors")
	}
	return v
}

// requestStrings is a vector request's values as the signature sees them.
func requestStrings(t *testing.T, req map[string]any) map[string]string {
	t.Helper()
	out := make(map[string]string, len(req))
	for k, v := range req {
		switch v := v.(type) {
		case string:
			out[k] = v
		case json.Number:
			out[k] = v.String()
		default:
			t.Fatalf("request member %s is %T", k, v)
		}
	}
	return out
}

// TestVectors checks every case of the family: notifications by their SIGN
// (and base where given), create calls by their base and signature.
func TestVectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case c.Fields != nil:
				checkNotificationVector(t, v, c)
			case c.Request != nil:
				checkRequestVector(t, v, c)
			default:
				t.Fatal("case has neither fields nor request")
			}
		})
	}
}

func checkNotificationVector(t *testing.T, v vectors, c vectorCase) {
	t.Helper()
	f := c.Fields
	if c.Base != "" {
		if got := fiatpsp.NotificationBase(f[fiatpsp.FieldMerchant], f[fiatpsp.FieldAmount], v.Secret2, f[fiatpsp.FieldOrder]); got != c.Base {
			t.Errorf("base = %q, want %q", got, c.Base)
		}
	}
	if got := fiatpsp.NotificationSigned(f[fiatpsp.FieldMerchant], f[fiatpsp.FieldAmount], f[fiatpsp.FieldOrder], f[fiatpsp.FieldSign], v.Secret2); got != c.Valid {
		t.Errorf("signed = %v, want %v", got, c.Valid)
	}
}

func checkRequestVector(t *testing.T, v vectors, c vectorCase) {
	t.Helper()
	values := requestStrings(t, c.Request)
	if got := fiatpsp.RequestBase(values); got != c.Base {
		t.Errorf("base = %q, want %q", got, c.Base)
	}
	got := fiatpsp.SignRequest(values, v.APIKey)
	if (got == c.Signature) != c.Valid {
		t.Errorf("signature = %s, want %s (valid %v)", got, c.Signature, c.Valid)
	}
	values["signature"] = c.Signature
	if fiatpsp.RequestSigned(values, v.APIKey) != c.Valid {
		t.Errorf("requestSigned disagrees with valid=%v", c.Valid)
	}
}

// TestCreateValuesMatchVector builds the create call from a Payment with the
// vector's terms and finds the vector's base: the adapter sends the amount
// with two decimals and every member the provider signs.
func TestCreateValuesMatchVector(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		if c.Request == nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			want := requestStrings(t, c.Request)
			a := vectorAdapter(t, v, "http://127.0.0.1:1")
			got, err := a.CreateValues(paymentFromVector(t, want), want["nonce"])
			if err != nil {
				t.Fatal(err)
			}
			if fiatpsp.RequestBase(got) != c.Base || got["signature"] != c.Signature {
				t.Errorf("create call base %q signature %s, want %q %s", fiatpsp.RequestBase(got), got["signature"], c.Base, c.Signature)
			}
		})
	}
}
