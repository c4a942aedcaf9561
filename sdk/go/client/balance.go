package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Balance reads the merchant's balances, one per currency (GET
// /api/balance), as the journal holds them now.
func (c *Client) Balance(ctx context.Context) ([]Balance, error) {
	var out []Balance
	if err := c.read(ctx, "/api/balance", url.Values{}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// TransactionParams narrow a page of transactions. Zero fields are not
// sent: the newest page of 50, every type.
type TransactionParams struct {
	Cursor   string   // the previous page's NextCursor
	Limit    int      // at most 500
	Types    []string // payment, refund, settlement, ...
	From, To time.Time
}

func (p TransactionParams) query() url.Values {
	q := url.Values{"action": {"transactions"}}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if len(p.Types) > 0 {
		q.Set("type", strings.Join(p.Types, ","))
	}
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(time.RFC3339))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(time.RFC3339))
	}
	return q
}

// Transactions reads one page of the merchant's journal, newest first
// (GET /api/balance?action=transactions). It lags the journal by the
// projection (half a second by default).
func (c *Client) Transactions(ctx context.Context, p TransactionParams) (*TransactionPage, error) {
	var page TransactionPage
	if err := c.read(ctx, "/api/balance", p.query(), &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// AllTransactions yields every transaction p selects, following the
// cursor from page to page, and stops at the first error (yielded once).
// A cursor marks a place in the journal: new transactions do not shift
// the pages behind it.
func (c *Client) AllTransactions(ctx context.Context, p TransactionParams) iter.Seq2[Transaction, error] {
	return func(yield func(Transaction, error) bool) {
		for {
			page, err := c.Transactions(ctx, p)
			if err != nil {
				yield(Transaction{}, err)
				return
			}
			for _, tx := range page.Transactions {
				if !yield(tx, nil) {
					return
				}
			}
			if page.NextCursor == "" || page.NextCursor == p.Cursor {
				return
			}
			p.Cursor = page.NextCursor
		}
	}
}
