package schema

import "strings"

// cryptoNetworks are the chain suffixes crypto providers glue to a token's
// ticker in their currency codes ("usdttrc20", "usdcsol"), longest first
// within a shared ending, with the name payers know the chain by.
var cryptoNetworks = []struct{ suffix, name string }{
	{"trc20", "TRC20"}, {"erc20", "ERC20"}, {"bep20", "BEP20"}, {"bsc", "BSC"},
	{"matic", "Polygon"}, {"polygon", "Polygon"}, {"sol", "Solana"}, {"arb", "Arbitrum"},
	{"op", "Optimism"}, {"ton", "TON"}, {"base", "Base"}, {"avaxc", "Avalanche C"},
}

// stablecoins are the tokens that carry a network suffix; for other codes
// a matching ending is part of the ticker (no "BITCOIN (TON)").
var stablecoins = []string{"usdt", "usdc", "dai", "busd", "tusd", "fdusd", "pyusd"}

// CryptoName is a provider's cryptocurrency code as a payer reads it:
// "usdttrc20" is "USDT (TRC20)", "btc" is "BTC".
func CryptoName(code string) string {
	c := strings.ToLower(strings.TrimSpace(code))
	for _, token := range stablecoins {
		rest, ok := strings.CutPrefix(c, token)
		if !ok || rest == "" {
			continue
		}
		for _, n := range cryptoNetworks {
			if rest == n.suffix {
				return strings.ToUpper(token) + " (" + n.name + ")"
			}
		}
	}
	return strings.ToUpper(c)
}
