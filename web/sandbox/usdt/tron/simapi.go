package tron

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"

	family "github.com/paygate/gateway/usdt/tron"

	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// lookup reads the {"value": id} body and the transaction it names, if it
// is already in a block. It answers itself (and returns ok false) for a
// bad body, a State failure or an ordered failure; an unknown or unmined
// transaction is found false, answered by the caller as the node does: {}.
func (s *Sim) lookup(w http.ResponseWriter, r *http.Request) (tx simTx, found, ok bool) {
	var body struct {
		Value string `json:"value"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil || !family.ValidHash(body.Value) {
		// The node answers a malformed request with 200 and an Error.
		usdtsim.WriteJSON(w, http.StatusOK, map[string]string{"Error": "class org.tron.core.exception.BadItemException : Invalid transaction id"})
		return simTx{}, false, false
	}
	id := strings.ToLower(body.Value)
	if s.Store.Misbehave(w, r, id) {
		return simTx{}, false, false
	}
	found, err := s.Store.Get(r.Context(), "tx", id, &tx)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return simTx{}, false, false
	}
	return tx, found && tx.Block <= s.Chain.Head(), true
}

func (s *Sim) getTransaction(w http.ResponseWriter, r *http.Request) {
	tx, found, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if !found {
		usdtsim.WriteJSON(w, http.StatusOK, map[string]any{})
		return
	}
	to, _ := hex.DecodeString(tx.To[2:])
	units, _ := new(big.Int).SetString(tx.Units, 10)
	ms := tx.At.UnixMilli()
	usdtsim.WriteJSON(w, http.StatusOK, map[string]any{
		"ret":     []map[string]string{{"contractRet": contractRet(tx.Success)}},
		"txID":    tx.Hash,
		"visible": false,
		"raw_data": map[string]any{
			"contract": []map[string]any{{
				"type": "TriggerSmartContract",
				"parameter": map[string]any{
					"type_url": "type.googleapis.com/protocol.TriggerSmartContract",
					"value": map[string]string{
						"data":             family.TransferSelector + word(to) + word(units.Bytes()),
						"owner_address":    tx.From,
						"contract_address": tx.Contract,
					},
				},
			}},
			"fee_limit":  100000000,
			"timestamp":  ms,
			"expiration": ms + 60000,
		},
	})
}

func (s *Sim) getTransactionInfo(w http.ResponseWriter, r *http.Request) {
	tx, found, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if !found {
		usdtsim.WriteJSON(w, http.StatusOK, map[string]any{})
		return
	}
	info := map[string]any{
		"id":               tx.Hash,
		"fee":              345000,
		"blockNumber":      tx.Block,
		"blockTimeStamp":   s.Chain.TimeOf(tx.Block).UnixMilli(),
		"contractResult":   []string{""},
		"contract_address": tx.Contract,
		"receipt":          map[string]any{"energy_usage_total": 64285, "net_usage": 345, "result": contractRet(tx.Success)},
	}
	if tx.Success {
		from, _ := hex.DecodeString(tx.From[2:])
		to, _ := hex.DecodeString(tx.To[2:])
		units, _ := new(big.Int).SetString(tx.Units, 10)
		info["log"] = []map[string]any{{
			"address": tx.Contract[2:], // events name the contract without the 41 prefix
			"topics":  []string{family.TransferTopic, word(from), word(to)},
			"data":    word(units.Bytes()),
		}}
	} else {
		info["result"] = "FAILED"
		info["resMessage"] = hex.EncodeToString([]byte("REVERT opcode executed"))
	}
	usdtsim.WriteJSON(w, http.StatusOK, info)
}

func (s *Sim) getNowBlock(w http.ResponseWriter, r *http.Request) {
	head := s.Chain.Head()
	usdtsim.WriteJSON(w, http.StatusOK, map[string]any{
		"blockID": word(big.NewInt(head).Bytes()),
		"block_header": map[string]any{
			"raw_data": map[string]any{"number": head, "timestamp": s.Chain.TimeOf(head).UnixMilli(), "version": 30},
		},
	})
}

func contractRet(success bool) string {
	if success {
		return "SUCCESS"
	}
	return "REVERT"
}
