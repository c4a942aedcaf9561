package bsc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/usdt/internal/wire"
)

// Client reads transactions over JSON-RPC; it implements usdt.Chain.
type Client struct {
	cfg  Config
	conn wire.Conn
	id   atomic.Int64
}

var _ usdt.Chain = (*Client)(nil)

// NewClient builds a client; httpClient nil is a default client. An
// invalid cfg makes every call fail with the reason: callers validate at
// start-up.
func NewClient(cfg Config, httpClient *http.Client) *Client {
	cfg.BaseURL = wire.Trim(cfg.BaseURL)
	return &Client{cfg: cfg, conn: wire.NewConn(httpClient, cfg.Timeout, cfg.Validate())}
}

// Tx reads the transaction hash from its receipt: status, block, Transfer
// logs; then the newest block number (for the confirmations: newest minus
// its block, plus one) and its block's time. A null receipt (unknown, or
// not yet in a block) is usdt.ErrNotFound.
func (c *Client) Tx(ctx context.Context, hash string) (usdt.Tx, error) {
	hash, err := c.conn.Hash("bsc", "hash", hash, ValidHash)
	if err != nil {
		return usdt.Tx{}, err
	}
	var r *receipt
	if err := c.call(ctx, "eth_getTransactionReceipt", []any{hash}, &r); err != nil {
		return usdt.Tx{}, err
	}
	if r == nil {
		return usdt.Tx{}, fmt.Errorf("bsc transaction %s: %w", hash, usdt.ErrNotFound)
	}
	mined, err := Quantity(r.BlockNumber)
	if err != nil {
		return usdt.Tx{}, fmt.Errorf("bsc receipt %s: %w", hash, err)
	}
	var headQ string
	if err := c.call(ctx, "eth_blockNumber", []any{}, &headQ); err != nil {
		return usdt.Tx{}, err
	}
	head, err := Quantity(headQ)
	if err != nil {
		return usdt.Tx{}, fmt.Errorf("bsc eth_blockNumber: %w", err)
	}
	var b *block
	if err := c.call(ctx, "eth_getBlockByNumber", []any{r.BlockNumber, false}, &b); err != nil {
		return usdt.Tx{}, err
	}
	if b == nil {
		// The receipt's node knew the block, this one does not (yet): a
		// backend out of step, not a missing transaction.
		return usdt.Tx{}, fmt.Errorf("bsc block %d of %s unknown to the node", mined, hash)
	}
	ts, err := Quantity(b.Timestamp)
	if err != nil {
		return usdt.Tx{}, fmt.Errorf("bsc block %d: %w", mined, err)
	}
	out := usdt.Tx{Hash: hash, Success: r.Status == "0x1", BlockTime: time.Unix(ts, 0).UTC(),
		Confirmations: max(head-mined+1, 0)}
	for _, l := range r.Logs {
		if t, ok := DecodeTransfer(l); ok {
			out.Transfers = append(out.Transfers, t)
		}
	}
	return out, nil
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// call makes one JSON-RPC call and decodes its result into out (a null
// result leaves a pointer out nil).
func (c *Client) call(ctx context.Context, method string, params []any, out any) error {
	id := c.id.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("bsc %s: %w", method, err)
	}
	a, err := c.conn.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	})
	if err != nil {
		return fmt.Errorf("bsc %s: %w", method, err)
	}
	if a.Status != http.StatusOK {
		return fmt.Errorf("bsc %s: HTTP %d", method, a.Status)
	}
	var res struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(a.Body, &res); err != nil {
		return fmt.Errorf("bsc %s: decode answer: %w", method, err)
	}
	switch {
	case res.Error != nil:
		return fmt.Errorf("bsc %s: error %d: %.200s", method, res.Error.Code, res.Error.Message)
	case string(res.ID) != strconv.FormatInt(id, 10):
		return fmt.Errorf("bsc %s: answer to request %s, not %d", method, res.ID, id)
	case len(res.Result) == 0:
		return fmt.Errorf("bsc %s: answer without a result", method)
	}
	if err := json.Unmarshal(res.Result, out); err != nil {
		return fmt.Errorf("bsc %s: decode result: %w", method, err)
	}
	return nil
}
