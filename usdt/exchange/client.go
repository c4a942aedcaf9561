package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/usdt/internal/wire"
)

// Client reads our account at the exchange; it implements usdt.Exchange.
type Client struct {
	cfg  Config
	conn wire.Conn
}

var _ usdt.Exchange = (*Client)(nil)

// NewClient builds a client; httpClient nil is a default client. An
// invalid cfg makes every call fail with the reason: callers validate at
// start-up.
func NewClient(cfg Config, httpClient *http.Client) *Client {
	cfg.BaseURL = wire.Trim(cfg.BaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now // a Config built without Defaults has no clock
	}
	return &Client{cfg: cfg, conn: wire.NewConn(httpClient, cfg.Timeout, cfg.Validate())}
}

// APIError is the exchange's refusal: {"code": -1022, "msg": "..."}.
type APIError struct {
	Status int    // HTTP status
	Code   int    `json:"code"`
	Msg    string `json:"msg"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("exchange refused (HTTP %d): %d %.200s", e.Status, e.Code, e.Msg)
}

// DepositRow is one row of the deposit history.
type DepositRow struct {
	Amount     string `json:"amount"`
	Coin       string `json:"coin"`
	Network    string `json:"network"`
	Status     int    `json:"status"` // 0 pending, 1 success, 6 credited but locked, 7 wrong deposit, ...
	Address    string `json:"address"`
	TxID       string `json:"txId"`
	InsertTime int64  `json:"insertTime"` // milliseconds
}

// Deposit reads the USDT deposit of txID on network (the exchange's name:
// TRX, BSC). Only status 1 is Success: 6 is credited but not yet
// withdrawable, which is not yet ours to count. No row is usdt.ErrNotFound.
func (c *Client) Deposit(ctx context.Context, network, txID string) (usdt.Deposit, error) {
	var rows []DepositRow
	err := c.get(ctx, DepositPath, &rows, param{"coin", "USDT"}, param{"network", network}, param{"txId", txID})
	if err != nil {
		return usdt.Deposit{}, fmt.Errorf("exchange deposit %s: %w", txID, err)
	}
	for _, r := range rows {
		if strings.EqualFold(r.TxID, txID) && strings.EqualFold(r.Network, network) {
			return usdt.Deposit{TxID: r.TxID, Coin: r.Coin, Network: r.Network, Address: r.Address,
				Amount: r.Amount, Success: r.Status == 1, InsertTime: time.UnixMilli(r.InsertTime).UTC()}, nil
		}
	}
	return usdt.Deposit{}, fmt.Errorf("exchange deposit %s on %s: %w", txID, network, usdt.ErrNotFound)
}

// get makes the signed GET of path with params and decodes a 200 answer
// into out; any other answer is an *APIError or a backend error.
func (c *Client) get(ctx context.Context, path string, out any, params ...param) error {
	return c.call(ctx, http.MethodGet, path, out, params...)
}

// call is a signed call of method: the parameters travel in the query
// string for a POST as for a GET, which the exchange accepts and signs
// alike.
func (c *Client) call(ctx context.Context, method, path string, out any, params ...param) error {
	a, err := c.conn.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		// Signed per attempt: the timestamp is the attempt's.
		u := c.cfg.BaseURL + path + "?" + signedQuery(c.cfg.Secret, c.cfg.Now(), params...)
		req, err := http.NewRequestWithContext(ctx, method, u, nil)
		if err == nil {
			req.Header.Set(APIKeyHeader, c.cfg.APIKey)
		}
		return req, err
	})
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK {
		e := &APIError{Status: a.Status}
		_ = json.Unmarshal(a.Body, e)
		return e
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}
