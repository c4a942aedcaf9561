package schema

import "testing"

func TestCryptoName(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"stablecoin on TRON", "usdttrc20", "USDT (TRC20)"},
		{"upper case code", "USDTTRC20", "USDT (TRC20)"},
		{"stablecoin on BSC", "usdtbsc", "USDT (BSC)"},
		{"USDC on Solana", "usdcsol", "USDC (Solana)"},
		{"a coin", "btc", "BTC"},
		{"a coin whose ticker ends like a chain", "bton", "BTON"},
		{"a token without a known chain", "usdtxyz", "USDTXYZ"},
		{"the token alone", "usdt", "USDT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := CryptoName(tc.code); got != tc.want {
				t.Errorf("CryptoName(%q) = %q, want %q", tc.code, got, tc.want)
			}
		})
	}
}
