package usdt

import (
	"github.com/paygate/gateway/usdt/internal/base58check"
)

// chain is what we know of how a network writes addresses and transaction
// hashes. An address that is not well formed would take payers' money to
// nowhere, so it is refused when a network is configured, not when a payer
// sees it.
type chain struct {
	address func(string) bool
	tx      func(string) bool // on the lower-cased, trimmed hash
	// defaults for a network configured without them
	contract        string
	decimals        int
	confirmations   int64
	exchangeNetwork string
}

// chains are the networks we know. The contracts are Tether's USDT
// contracts on each chain (public, as every wallet shows them).
// Tether's USDT contracts: the default token of each network, and the
// simulators' token.
const (
	TRC20Contract = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	BEP20Contract = "0x55d398326f99059ff775485246999027b3197955"
)

var chains = map[string]chain{
	"TRC20": {address: tronAddress, tx: func(s string) bool { return len(s) == 64 && isHex(s) },
		contract: TRC20Contract, decimals: 6, confirmations: 30, exchangeNetwork: "TRX"},
	"BEP20": {address: evmAddress, tx: evmTxHash,
		contract: BEP20Contract, decimals: 18, confirmations: 15, exchangeNetwork: "BSC"},
	"ERC20": {address: evmAddress, tx: evmTxHash,
		contract: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6, confirmations: 12, exchangeNetwork: "ETH"},
}

// NetworkNames are the networks we know, in the order help texts list them.
var NetworkNames = []string{"TRC20", "BEP20", "ERC20"}

// KnownNetwork reports whether name (upper case) is a network we know.
func KnownNetwork(name string) bool {
	_, ok := chains[name]
	return ok
}

// ValidAddress reports whether addr is well formed on network: TRON
// base58check (the checksum catches a mistyped character), or 0x and 20
// bytes in hex on an EVM chain.
func ValidAddress(network, addr string) bool {
	c, ok := chains[network]
	return ok && c.address(addr)
}

// ExchangeNetwork is the exchange's default name of network (TRX for
// TRC20), "" for a network we do not know: the name its deposit history
// and its withdrawals use.
func ExchangeNetwork(network string) string { return chains[network].exchangeNetwork }

// NetworkOfExchange is our name of the exchange's network name, "" for
// one we do not know.
func NetworkOfExchange(name string) string {
	for n, c := range chains {
		if c.exchangeNetwork == name {
			return n
		}
	}
	return ""
}

// ValidTxHash reports whether tx (lower case, trimmed) is a transaction
// hash as network writes them: 64 hex digits on TRON, 0x and 64 on EVM
// chains.
func ValidTxHash(network, tx string) bool {
	c, ok := chains[network]
	return ok && c.tx(tx)
}

// tronAddress is a TRON address: base58check of 0x41 and 20 bytes, which
// always reads T and 33 more characters.
func tronAddress(s string) bool {
	if len(s) != 34 || s[0] != 'T' {
		return false
	}
	b, err := base58check.Decode(s)
	return err == nil && len(b) == 21 && b[0] == 0x41
}

// evmAddress is 0x and 20 bytes in hex. A mixed-case (EIP-55) checksum is
// not verified: that needs Keccak-256, which the standard library lacks.
func evmAddress(s string) bool {
	return len(s) == 42 && s[:2] == "0x" && isHex(s[2:])
}

func evmTxHash(s string) bool { return len(s) == 66 && s[:2] == "0x" && isHex(s[2:]) }

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
