package client

import (
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"
)

type signVector struct {
	Name   string             `json:"name"`
	Params map[string]*string `json:"params"`
	Key    string             `json:"key"`
	Base   string             `json:"base"`
	Sign   string             `json:"sign"`
}

func loadVectors(t *testing.T) []signVector {
	t.Helper()
	raw, err := os.ReadFile(sharedFile(t, "GATEWAY_SDK_SIGN_VECTORS", "schema/testdata/sign-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Vectors []signVector }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Vectors) == 0 {
		t.Fatal("no sign vectors")
	}
	return doc.Vectors
}

// present drops the null parameters: absent, never signed.
func (v signVector) present() map[string]string {
	p := map[string]string{}
	for name, val := range v.Params {
		if val != nil {
			p[name] = *val
		}
	}
	return p
}

// TestSignVectors holds Sign to every vector the gateway is tested with.
func TestSignVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			p := v.present()
			if got := SignBase(p); got != v.Base {
				t.Errorf("base\n got %s\nwant %s", got, v.Base)
			}
			if got := Sign(p, v.Key); got != v.Sign {
				t.Errorf("sign %s, want %s", got, v.Sign)
			}
		})
	}
}

// TestCreateSignsAsTheVectors builds each create vector through
// CreateRequest: the SDK sends exactly the vector's parameters, and its
// sign. A vector with an empty value is left out: a CreateRequest sends no
// empty field (the gateway stores an absent one the same).
func TestCreateSignsAsTheVectors(t *testing.T) {
	ran := 0
	for _, v := range loadVectors(t) {
		p := v.present()
		if p["action"] != "createorder" || hasEmpty(p) {
			continue
		}
		ran++
		t.Run(v.Name, func(t *testing.T) {
			c := testClient(t, "https://pay.example", func(cfg *Config) { cfg.AppID, cfg.APIKey = p["appid"], v.Key })
			got, err := c.signed(createRequestOf(p), "")
			if err != nil {
				t.Fatal(err)
			}
			want := maps.Clone(p)
			want["sign"], want["sign_type"] = v.Sign, "MD5"
			if !maps.Equal(got, want) {
				t.Errorf("sent\n %v\nwant %v", got, want)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no create vector ran")
	}
}

func hasEmpty(p map[string]string) bool {
	for _, v := range p {
		if v == "" {
			return true
		}
	}
	return false
}

func createRequestOf(p map[string]string) CreateRequest {
	var allowed []string
	if p["allowedPaymentMethods"] != "" {
		allowed = strings.Split(p["allowedPaymentMethods"], ",")
	}
	return CreateRequest{
		Amount: p["amount"], Currency: p["currency"], PaymentMethod: p["paymentMethod"], ClientIP: p["clientip"],
		ClientOrderID: p["clientOrderId"], Description: p["description"], CustomerName: p["customerName"],
		CustomerEmail: p["customerEmail"], CustomerPhone: p["customerPhone"], NotifyURL: p["notify_url"],
		ReturnURL: p["return_url"], Lang: p["lang"], AllowedPaymentMethods: allowed, FiatpspSystemID: p["fiatpspSystemId"],
	}
}
