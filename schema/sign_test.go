package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type signVector struct {
	Name   string             `json:"name"`
	Params map[string]*string `json:"params"`
	Key    string             `json:"key"`
	Base   string             `json:"base"`
	Sign   string             `json:"sign"`
}

// loadVectors reads the shared vectors beside the checkout when they are
// there (CI has them), else the copy kept in testdata; the copy is checked
// against the shared file whenever both exist.
func loadVectors(t testing.TB) []signVector {
	t.Helper()
	local, err := os.ReadFile(filepath.Join("testdata", "sign-vectors.json"))
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	if shared, err := os.ReadFile(filepath.Join("..", "..", "shared", "testdata", "sign-vectors.json")); err == nil && string(shared) != string(local) {
		t.Fatalf("schema/testdata/sign-vectors.json differs from ../shared/testdata/sign-vectors.json: copy it again")
	}
	var doc struct {
		Vectors []signVector `json:"vectors"`
	}
	if err := json.Unmarshal(local, &doc); err != nil {
		t.Fatalf("decode vectors: %v", err)
	}
	if len(doc.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	return doc.Vectors
}

func TestSignVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			p := Params{}
			for k, val := range v.Params {
				if val != nil {
					p[k] = *val
				}
			}
			if got := SignBase(p); got != v.Base {
				t.Errorf("base\n got %s\nwant %s", got, v.Base)
			}
			if got := Sign(p, v.Key); got != v.Sign {
				t.Errorf("sign = %s, want %s", got, v.Sign)
			}
			p["sign"] = v.Sign
			if !VerifySign(p, v.Key, v.Sign) {
				t.Error("VerifySign refused the vector's own sign")
			}
			if VerifySign(p, v.Key+"x", v.Sign) {
				t.Error("VerifySign accepted a sign made with another key")
			}
		})
	}
}

func TestVerifySignIgnoresSignAndCase(t *testing.T) {
	p := Params{"a": "1", "sign_type": "MD5"}
	s := Sign(p, "k")
	p["sign"] = "whatever"
	if !VerifySign(p, "k", s) {
		t.Fatal("sign and sign_type must not be signed")
	}
	upper := []byte(s)
	for i, c := range upper {
		if c >= 'a' && c <= 'f' {
			upper[i] = c - 32
		}
	}
	if !VerifySign(p, "k", string(upper)) {
		t.Fatal("upper-case hex sign refused")
	}
}
