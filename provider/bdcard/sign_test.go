package bdcard

import (
	"errors"
	"maps"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

type vectorCase struct {
	Name   string            `json:"name"`
	Fields map[string]string `json:"fields"`
	Base   string            `json:"base"`
	Valid  bool              `json:"valid"`
}

type vectorFamily struct {
	StorePassword string       `json:"store_password"`
	Cases         []vectorCase `json:"cases"`
}

func loadVectors(t *testing.T) vectorFamily {
	t.Helper()
	var f vectorFamily
	providertest.Family(t, "bdcard_bdpsp_a", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no bdcard_bdpsp_a vectors")
	}
	return f
}

// Every case of the shared vectors: the base string is the one computed
// outside the project, valid cases verify, invalid ones are refused.
func TestVectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			base, err := SignBase(c.Fields, v.StorePassword)
			if err != nil {
				t.Fatalf("SignBase: %v", err)
			}
			if c.Base != "" && base != c.Base {
				t.Fatalf("base\n got %s\nwant %s", base, c.Base)
			}
			err = VerifySign(c.Fields, v.StorePassword)
			if c.Valid && err != nil {
				t.Fatalf("valid case refused: %v", err)
			}
			if !c.Valid && !errors.Is(err, provider.ErrSignature) {
				t.Fatalf("invalid case: err = %v, want ErrSignature", err)
			}
		})
	}
}

// Refusals the vectors do not spell out, built from the first valid case.
func TestVerifySignRefuses(t *testing.T) {
	v := loadVectors(t)
	valid := v.Cases[0].Fields
	cases := []struct {
		name   string
		edit   func(map[string]string)
		passwd string
	}{
		{"wrong store password", func(map[string]string) {}, "not-the-password"},
		{"no verify_sign", func(f map[string]string) { delete(f, fieldVerifySign) }, v.StorePassword},
		{"no verify_key", func(f map[string]string) { delete(f, fieldVerifyKey) }, v.StorePassword},
		{"named field absent", func(f map[string]string) { delete(f, "bank_tran_id") }, v.StorePassword},
		{"store_passwd named", func(f map[string]string) { f[fieldVerifyKey] += ",store_passwd" }, v.StorePassword},
		{"name repeated", func(f map[string]string) { f[fieldVerifyKey] += ",amount" }, v.StorePassword},
		{"empty name", func(f map[string]string) { f[fieldVerifyKey] += "," }, v.StorePassword},
		{"name dropped from key", func(f map[string]string) { f[fieldVerifyKey] = "amount,tran_id" }, v.StorePassword},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := maps.Clone(valid)
			c.edit(f)
			if err := VerifySign(f, c.passwd); !errors.Is(err, provider.ErrSignature) {
				t.Fatalf("err = %v, want ErrSignature", err)
			}
		})
	}
}

// Sign is what the simulator uses: what it signs, VerifySign accepts, and
// with the vectors' names and password it gives the vectors' signature.
func TestSignMatchesVectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		if !c.Valid {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			f := maps.Clone(c.Fields)
			names, err := signedNames(f[fieldVerifyKey])
			if err != nil {
				t.Fatal(err)
			}
			delete(f, fieldVerifySign)
			if err := Sign(f, names, v.StorePassword); err != nil {
				t.Fatal(err)
			}
			if f[fieldVerifySign] != c.Fields[fieldVerifySign] {
				t.Fatalf("verify_sign = %s, want %s", f[fieldVerifySign], c.Fields[fieldVerifySign])
			}
		})
	}
}

func TestRequireSigned(t *testing.T) {
	f := map[string]string{fieldVerifyKey: "amount,status"}
	if err := requireSigned(f, "amount", "status"); err != nil {
		t.Fatalf("signed fields refused: %v", err)
	}
	if err := requireSigned(f, "amount", "tran_id"); !errors.Is(err, provider.ErrSignature) {
		t.Fatalf("unsigned tran_id: err = %v, want ErrSignature", err)
	}
}
