package cryptohost

import (
	"testing"

	"github.com/paygate/gateway/provider/internal/providertest"
)

type vectorCase struct {
	Name      string `json:"name"`
	Body      string `json:"body"`
	Signature string `json:"signature"`
	Valid     bool   `json:"valid"`
}

type vectorFamily struct {
	Secret string       `json:"secret"`
	Cases  []vectorCase `json:"cases"`
}

// loadVectors reads this family's cases from the shared vectors file.
func loadVectors(t testing.TB) vectorFamily {
	t.Helper()
	var f vectorFamily
	providertest.Family(t, "cryptohost", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no cryptohost vectors")
	}
	return f
}

func TestSignatureVectors(t *testing.T) {
	f := loadVectors(t)
	for _, tc := range f.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			err := VerifySignature(f.Secret, []byte(tc.Body), tc.Signature)
			if tc.Valid && err != nil {
				t.Fatalf("valid case refused: %v", err)
			}
			if !tc.Valid && err == nil {
				t.Fatal("invalid case accepted")
			}
			if tc.Valid && Sign(f.Secret, []byte(tc.Body)) != tc.Signature {
				t.Fatal("Sign differs from the vector")
			}
		})
	}
}

func TestVerifySignatureRefuses(t *testing.T) {
	f := loadVectors(t)
	body, sig := []byte(f.Cases[0].Body), f.Cases[0].Signature
	tests := []struct {
		name, secret, sig string
	}{
		{"no header", f.Secret, ""},
		{"not hex", f.Secret, "zz" + sig[2:]},
		{"truncated", f.Secret, sig[:32]},
		{"other secret", "whsec_other", sig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := VerifySignature(tt.secret, body, tt.sig); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
