package access

import (
	"encoding/base32"
	"testing"
	"time"
)

// TestMatchStep: RFC 6238's SHA-1 test vector (T = 59 s is step 1, code
// 94287082, of which authenticators show the last six digits), one step of
// drift either side accepted, two refused.
func TestMatchStep(t *testing.T) {
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("12345678901234567890"))
	tests := []struct {
		name string
		at   int64
		code string
		want uint64
	}{
		{"RFC 6238 T=59", 59, "287082", 1},
		{"RFC 6238 T=1111111109", 1111111109, "081804", 37037036},
		{"one step late", 1111111109 + 30, "081804", 37037036},
		{"one step early", 1111111109 - 30, "081804", 37037036},
		{"two steps late", 1111111109 + 60, "081804", 0},
		{"wrong digit", 59, "287083", 0},
		{"eight digits", 59, "94287082", 0},
		{"empty", 59, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchStep(secret, tt.code, time.Unix(tt.at, 0)); got != tt.want {
				t.Fatalf("step %d, want %d", got, tt.want)
			}
		})
	}
}

// TestRecoveryCodes: distinct, of the form a person can type, stored as hashes.
func TestRecoveryCodes(t *testing.T) {
	codes, hashes := newRecoveryCodes(10)
	seen := map[string]bool{}
	for i, c := range codes {
		norm, ok := recoveryForm(" " + c + " ")
		if !ok || norm != c || seen[c] || hashes[i] != digest(c) || len(hashes[i]) != 64 {
			t.Fatalf("code %q, hash %q", c, hashes[i])
		}
		seen[c] = true
	}
}
