package bsc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	family "github.com/paygate/gateway/usdt/bsc"

	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// rpcRequest is one JSON-RPC call.
type rpcRequest struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

// JSON-RPC error codes the simulator answers with.
const (
	codeParse          = -32700
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

func (s *Sim) serveRPC(w http.ResponseWriter, r *http.Request) {
	var req rpcRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		writeRPCError(w, nil, codeParse, "parse error")
		return
	}
	switch req.Method {
	case "eth_blockNumber":
		writeResult(w, req.ID, fmt.Sprintf("%#x", s.Chain.Head()))
	case "eth_chainId":
		writeResult(w, req.ID, "0x38")
	case "eth_getBlockByNumber":
		s.getBlock(w, req)
	case "eth_getTransactionReceipt":
		s.getReceipt(w, r, req)
	default:
		writeRPCError(w, req.ID, codeMethodNotFound, "the method "+req.Method+" does not exist/is not available")
	}
}

func (s *Sim) getBlock(w http.ResponseWriter, req rpcRequest) {
	var tag string
	if len(req.Params) != 2 || json.Unmarshal(req.Params[0], &tag) != nil {
		writeRPCError(w, req.ID, codeInvalidParams, "invalid params")
		return
	}
	n, err := family.Quantity(tag)
	if tag == "latest" {
		n, err = s.Chain.Head(), nil
	}
	if err != nil || n < 1 {
		writeRPCError(w, req.ID, codeInvalidParams, "invalid block number")
		return
	}
	if n > s.Chain.Head() {
		writeResult(w, req.ID, nil)
		return
	}
	writeResult(w, req.ID, map[string]any{
		"number":       fmt.Sprintf("%#x", n),
		"hash":         "0x" + WordHex(big.NewInt(n)),
		"timestamp":    fmt.Sprintf("%#x", s.Chain.TimeOf(n).Unix()),
		"transactions": []string{},
	})
}

func (s *Sim) getReceipt(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	var hash string
	if len(req.Params) != 1 || json.Unmarshal(req.Params[0], &hash) != nil || !family.ValidHash(hash) {
		writeRPCError(w, req.ID, codeInvalidParams, "invalid argument 0: hex string has wrong length")
		return
	}
	hash = strings.ToLower(hash)
	if s.Store.Misbehave(w, r, hash) {
		return
	}
	var tx simTx
	found, err := s.Store.Get(r.Context(), "tx", hash, &tx)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	if !found || tx.Block > s.Chain.Head() {
		writeResult(w, req.ID, nil)
		return
	}
	writeResult(w, req.ID, receiptOf(tx))
}

// receiptOf is the receipt a node gives for tx: status, block and, when it
// succeeded, the token's Transfer log.
func receiptOf(tx simTx) map[string]any {
	block := fmt.Sprintf("%#x", tx.Block)
	blockHash := "0x" + WordHex(big.NewInt(tx.Block))
	status, logs := "0x0", []map[string]any{}
	if tx.Success {
		units, _ := new(big.Int).SetString(tx.Units, 10)
		status = "0x1"
		logs = append(logs, map[string]any{
			"address":     tx.Contract,
			"topics":      []string{family.TransferTopic, addressTopic(tx.From), addressTopic(tx.To)},
			"data":        "0x" + WordHex(units),
			"blockNumber": block, "blockHash": blockHash, "transactionHash": tx.Hash,
			"transactionIndex": "0x0", "logIndex": "0x0", "removed": false,
		})
	}
	return map[string]any{
		"transactionHash": tx.Hash, "transactionIndex": "0x0", "blockNumber": block, "blockHash": blockHash,
		"from": tx.From, "to": tx.Contract, "contractAddress": nil, "status": status, "type": "0x0",
		"gasUsed": "0xc8a2", "cumulativeGasUsed": "0xc8a2", "effectiveGasPrice": "0x3b9aca00", "logs": logs,
	}
}

// addressTopic is an address left-padded to a 32-byte topic.
func addressTopic(addr string) string { return "0x" + strings.Repeat("0", 24) + addr[2:] }

// WordHex is n as 64 hex digits.
func WordHex(n *big.Int) string {
	b := make([]byte, 32)
	return hex.EncodeToString(n.FillBytes(b))
}

func writeResult(w http.ResponseWriter, id json.RawMessage, result any) {
	usdtsim.WriteJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func writeRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	usdtsim.WriteJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg}})
}
