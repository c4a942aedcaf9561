package base58check

import (
	"encoding/hex"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct{ name, hex, b58 string }{
		{"USDT TRC20 contract (vector)", "41a614f803b6fd780986a42c78ec9c7f77e6ded13c", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
		{"a receiving address (vector)", "417d65d39303e3d6db786a3c9f0b2cd03f6a324eb3", "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := hex.DecodeString(tc.hex)
			if got := Encode(raw); got != tc.b58 {
				t.Fatalf("Encode = %s, want %s", got, tc.b58)
			}
			back, err := Decode(tc.b58)
			if err != nil || hex.EncodeToString(back) != tc.hex {
				t.Fatalf("Decode = %x, %v", back, err)
			}
		})
	}
	for _, bad := range []string{"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60", ""} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}
