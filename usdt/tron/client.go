package tron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/usdt/internal/wire"
)

// Client reads transactions from a TRON full node; it implements
// usdt.Chain.
type Client struct {
	cfg  Config
	conn wire.Conn
}

var _ usdt.Chain = (*Client)(nil)

// NewClient builds a client; httpClient nil is a default client (the
// sandbox passes one that reaches the in-process simulator). An invalid cfg
// makes every call fail with the reason: callers validate at start-up.
func NewClient(cfg Config, httpClient *http.Client) *Client {
	cfg.BaseURL = wire.Trim(cfg.BaseURL)
	return &Client{cfg: cfg, conn: wire.NewConn(httpClient, cfg.Timeout, cfg.Validate())}
}

// Tx reads the transaction hash: whether it succeeded, its block's time,
// its confirmations (the newest block minus its block, plus one) and its
// TRC20 transfers. A transaction the node does not know, or knows but has
// not put in a block, is usdt.ErrNotFound.
func (c *Client) Tx(ctx context.Context, hash string) (usdt.Tx, error) {
	hash, err := c.conn.Hash("tron", "id", hash, ValidHash)
	if err != nil {
		return usdt.Tx{}, err
	}
	var info txInfo
	if err := c.call(ctx, "gettransactioninfobyid", map[string]string{"value": hash}, &info); err != nil {
		return usdt.Tx{}, err
	}
	if info.ID == "" || info.BlockNumber == 0 {
		return usdt.Tx{}, fmt.Errorf("tron transaction %s: %w", hash, usdt.ErrNotFound)
	}
	var tx transaction
	if err := c.call(ctx, "gettransactionbyid", map[string]string{"value": hash}, &tx); err != nil {
		return usdt.Tx{}, err
	}
	if tx.TxID == "" {
		return usdt.Tx{}, fmt.Errorf("tron transaction %s: %w", hash, usdt.ErrNotFound)
	}
	var now nowBlock
	if err := c.call(ctx, "getnowblock", map[string]string{}, &now); err != nil {
		return usdt.Tx{}, err
	}
	return c.assemble(hash, tx, info, now.BlockHeader.RawData.Number)
}

// assemble turns the node's three answers into a usdt.Tx.
func (c *Client) assemble(hash string, tx transaction, info txInfo, head int64) (usdt.Tx, error) {
	out := usdt.Tx{
		Hash:          hash,
		Success:       succeeded(tx, info),
		BlockTime:     time.UnixMilli(info.BlockTimeStamp).UTC(),
		Confirmations: max(head-info.BlockNumber+1, 0),
	}
	var err error
	if out.Success {
		out.Transfers, err = eventTransfers(info.Log)
	} else {
		out.Transfers, err = triggerTransfers(tx)
	}
	if err != nil {
		return usdt.Tx{}, fmt.Errorf("tron transaction %s: %w", hash, err)
	}
	return out, nil
}

// call posts body to /wallet/name and decodes the answer into out.
func (c *Client) call(ctx context.Context, name string, body any, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("tron %s: %w", name, err)
	}
	a, err := c.conn.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/wallet/"+name, bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if c.cfg.APIKey != "" {
			req.Header.Set(APIKeyHeader, c.cfg.APIKey)
		}
		return req, nil
	})
	if err != nil {
		return fmt.Errorf("tron %s: %w", name, err)
	}
	if a.Status != http.StatusOK {
		return fmt.Errorf("tron %s: HTTP %d", name, a.Status)
	}
	// The node answers a refused request with 200 and an Error: it must
	// not read as an empty answer, which means "not found".
	var refused struct {
		Error string `json:"Error"`
	}
	if err := json.Unmarshal(a.Body, &refused); err == nil && refused.Error != "" {
		return fmt.Errorf("tron %s: node refused: %.200s", name, refused.Error)
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return fmt.Errorf("tron %s: decode answer: %w", name, err)
	}
	return nil
}
