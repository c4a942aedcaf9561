package bsc

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/paygate/gateway/usdt"
)

// TransferTopic is topic0 of Transfer(address,address,uint256).
const TransferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

// Log is one event log of a receipt.
type Log struct {
	Address string   `json:"address"`
	Topics  []string `json:"topics"`
	Data    string   `json:"data"`
	Removed bool     `json:"removed"` // dropped by a reorganisation
}

// receipt is eth_getTransactionReceipt's answer, as far as it is read.
type receipt struct {
	TransactionHash string `json:"transactionHash"`
	Status          string `json:"status"` // 0x1 success, 0x0 failure
	BlockNumber     string `json:"blockNumber"`
	Logs            []Log  `json:"logs"`
}

// block is eth_getBlockByNumber's answer, as far as it is read.
type block struct {
	Number    string `json:"number"`
	Timestamp string `json:"timestamp"` // seconds
}

// DecodeTransfer reads a Transfer log: the token contract, from, to and
// the amount. ok is false for any other log, including one removed by a
// reorganisation and one whose words are malformed.
func DecodeTransfer(l Log) (usdt.TokenTransfer, bool) {
	if l.Removed || len(l.Topics) != 3 || !strings.EqualFold(l.Topics[0], TransferTopic) || !ValidAddress(l.Address) {
		return usdt.TokenTransfer{}, false
	}
	from, ok1 := wordAddress(l.Topics[1])
	to, ok2 := wordAddress(l.Topics[2])
	units, ok3 := wordUint(l.Data)
	if !ok1 || !ok2 || !ok3 {
		return usdt.TokenTransfer{}, false
	}
	return usdt.TokenTransfer{Contract: strings.ToLower(l.Address), From: from, To: to, Units: units}, true
}

// wordAddress is the address in a topic: 12 zero bytes, then 20.
func wordAddress(w string) (string, bool) {
	b, ok := word(w)
	if !ok || strings.Trim(hex.EncodeToString(b[:12]), "0") != "" {
		return "", false
	}
	return "0x" + hex.EncodeToString(b[12:]), true
}

// wordUint is a 32-byte big-endian amount.
func wordUint(w string) (*big.Int, bool) {
	b, ok := word(w)
	if !ok {
		return nil, false
	}
	return new(big.Int).SetBytes(b), true
}

func word(w string) ([]byte, bool) {
	if !strings.HasPrefix(w, "0x") {
		return nil, false
	}
	b, err := hex.DecodeString(w[2:])
	return b, err == nil && len(b) == 32
}

// Quantity reads a JSON-RPC quantity: 0x and hex digits without leading
// zeros.
func Quantity(s string) (int64, error) {
	if !strings.HasPrefix(s, "0x") || len(s) < 3 {
		return 0, fmt.Errorf("quantity %q", s)
	}
	n, err := strconv.ParseInt(s[2:], 16, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("quantity %q", s)
	}
	return n, nil
}
