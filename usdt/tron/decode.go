package tron

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/paygate/gateway/usdt"
)

// The node's answers, as far as the reviewer reads them (visible=false:
// addresses are 41-prefixed hex; event addresses and topics are bare hex).
type (
	transaction struct {
		TxID string `json:"txID"`
		Ret  []struct {
			ContractRet string `json:"contractRet"`
		} `json:"ret"`
		RawData struct {
			Contract []struct {
				Type      string `json:"type"`
				Parameter struct {
					Value struct {
						Data            string `json:"data"`
						OwnerAddress    string `json:"owner_address"`
						ContractAddress string `json:"contract_address"`
					} `json:"value"`
				} `json:"parameter"`
			} `json:"contract"`
		} `json:"raw_data"`
	}
	txInfo struct {
		ID             string `json:"id"`
		BlockNumber    int64  `json:"blockNumber"`
		BlockTimeStamp int64  `json:"blockTimeStamp"` // milliseconds
		Result         string `json:"result"`         // "FAILED" when it failed, absent otherwise
		Receipt        struct {
			Result string `json:"result"` // SUCCESS, REVERT, OUT_OF_ENERGY, ...
		} `json:"receipt"`
		Log []eventLog `json:"log"`
	}
	eventLog struct {
		Address string   `json:"address"`
		Topics  []string `json:"topics"`
		Data    string   `json:"data"`
	}
	nowBlock struct {
		BlockHeader struct {
			RawData struct {
				Number    int64 `json:"number"`
				Timestamp int64 `json:"timestamp"`
			} `json:"raw_data"`
		} `json:"block_header"`
	}
)

// TransferTopic is topic0 of Transfer(address,address,uint256), the same
// on TRON as on Ethereum.
const TransferTopic = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

// TransferSelector is the first four bytes of transfer(address,uint256)
// call data.
const TransferSelector = "a9059cbb"

// succeeded is true only when the node says so in both answers: the
// contract result and, for a contract call, its receipt.
func succeeded(tx transaction, info txInfo) bool {
	if len(tx.Ret) == 0 || tx.Ret[0].ContractRet != "SUCCESS" || info.Result == "FAILED" {
		return false
	}
	return info.Receipt.Result == "" || info.Receipt.Result == "SUCCESS"
}

// eventTransfers are the Transfer events the transaction's contracts
// emitted; other events are not transfers and are skipped.
func eventTransfers(logs []eventLog) ([]usdt.TokenTransfer, error) {
	var out []usdt.TokenTransfer
	for i, l := range logs {
		if len(l.Topics) != 3 || strings.ToLower(strings.TrimPrefix(l.Topics[0], "0x")) != TransferTopic {
			continue
		}
		contract, err := AddressFromHex(l.Address)
		if err != nil {
			return nil, fmt.Errorf("log %d address: %w", i, err)
		}
		from, err1 := wordAddress(l.Topics[1])
		to, err2 := wordAddress(l.Topics[2])
		units, err3 := wordUint(l.Data)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("log %d: malformed Transfer event", i)
		}
		out = append(out, usdt.TokenTransfer{Contract: contract, From: from, To: to, Units: units})
	}
	return out, nil
}

// triggerTransfers are the transfer(to, amount) calls the transaction asked
// of a contract; they say what was attempted, not what happened.
func triggerTransfers(tx transaction) ([]usdt.TokenTransfer, error) {
	var out []usdt.TokenTransfer
	for _, c := range tx.RawData.Contract {
		v := c.Parameter.Value
		data := strings.ToLower(v.Data)
		if c.Type != "TriggerSmartContract" || len(data) != 8+128 || !strings.HasPrefix(data, TransferSelector) {
			continue
		}
		contract, err1 := AddressFromHex(v.ContractAddress)
		from, err2 := AddressFromHex(v.OwnerAddress)
		to, err3 := wordAddress(data[8:72])
		units, err4 := wordUint(data[72:])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return nil, fmt.Errorf("malformed transfer call")
		}
		out = append(out, usdt.TokenTransfer{Contract: contract, From: from, To: to, Units: units})
	}
	return out, nil
}

// wordAddress is the address in the last 20 bytes of a 32-byte word.
func wordAddress(word string) (string, error) {
	word = strings.TrimPrefix(strings.ToLower(word), "0x")
	if len(word) != 64 {
		return "", fmt.Errorf("word of %d hex digits", len(word))
	}
	return AddressFromHex(word[24:])
}

// wordUint is a 32-byte big-endian unsigned integer.
func wordUint(word string) (*big.Int, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(word), "0x"))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("not a 32-byte word")
	}
	return new(big.Int).SetBytes(b), nil
}
