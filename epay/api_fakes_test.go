package epay

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// apiVectors is testdata/api-vectors.json: a fixture of merchants and
// orders, and api.php's requests with the answers the protocol gives,
// computed by api-vectors.php outside our code.
type apiVectors struct {
	Now       int64  `json:"now"`
	Types     string `json:"types"`
	Merchants []struct {
		AppID     string `json:"appid"`
		Key       string `json:"key"`
		TZ        string `json:"tz"`
		Disabled  bool   `json:"disabled"`
		Available int64  `json:"available"`
		Orders    int    `json:"orders"`
	} `json:"merchants"`
	Orders []struct {
		ID, AppID, COID, Method, Name, DType, DPar string
		Amount, Refunded, Created, Completed       int64
		Status                                     int
	} `json:"orders"`
	Cases []struct {
		Name   string          `json:"name"`
		Params Params          `json:"params"`
		Post   bool            `json:"post"`
		Answer json.RawMessage `json:"answer"`
	} `json:"cases"`
}

func readAPIVectors(t *testing.T) apiVectors {
	t.Helper()
	raw, err := os.ReadFile("testdata/api-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v apiVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// apiWorld is the fixture as the use case's collaborators see it.
type apiWorld struct {
	accounts map[string]*merchant.Account
	orders   []schema.Order
	avail    map[string]schema.Amount
	totals   map[string]int
	refund   schema.RefundStatus // what RefundFor's refund ends as ("" succeeded)
}

func newAPIWorld(t *testing.T, v apiVectors) *apiWorld {
	t.Helper()
	w := &apiWorld{accounts: map[string]*merchant.Account{}, avail: map[string]schema.Amount{}, totals: map[string]int{}}
	for _, m := range v.Merchants {
		w.accounts[m.AppID] = &merchant.Account{AppID: m.AppID, APIKey: m.Key, Disabled: m.Disabled, Terms: merchant.Terms{TimeZone: m.TZ}}
		w.avail[m.AppID], w.totals[m.AppID] = schema.Amount(m.Available), m.Orders
	}
	for _, o := range v.Orders {
		so := schema.Order{ID: o.ID, AppID: o.AppID, ClientOrderID: o.COID, Method: schema.Method(o.Method), Description: o.Name,
			DoorType: o.DType, DoorParam: o.DPar, Amount: schema.Amount(o.Amount), Refunded: schema.Amount(o.Refunded),
			Currency: "CNY", Status: schema.Status(o.Status), CreatedAt: time.Unix(o.Created, 0)}
		if o.Completed != 0 {
			so.CompletedAt = time.Unix(o.Completed, 0)
		}
		w.orders = append(w.orders, so)
	}
	return w
}

func (w *apiWorld) Lookup(_ context.Context, appid string) (*merchant.Account, error) {
	if a, ok := w.accounts[appid]; ok {
		return a, nil
	}
	return nil, merchant.ErrNotFound
}

func (w *apiWorld) OrderFor(_ context.Context, acct *merchant.Account, id string) (*schema.Order, error) {
	for i := range w.orders {
		if w.orders[i].ID == id && w.orders[i].AppID == acct.AppID {
			return &w.orders[i], nil
		}
	}
	return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
}

// PageFor is the listing: the merchant's orders the filter matches,
// newest first, one page.
func (w *apiWorld) PageFor(_ context.Context, acct *merchant.Account, f query.Filter) (int, []schema.Order, error) {
	var all []schema.Order
	for _, o := range w.orders {
		switch {
		case o.AppID != acct.AppID, f.Status != nil && o.Status != *f.Status, f.ClientOrderID != "" && o.ClientOrderID != f.ClientOrderID,
			!f.From.IsZero() && o.CreatedAt.Before(f.From), !f.To.IsZero() && !o.CreatedAt.Before(f.To):
			continue
		}
		all = append(all, o)
	}
	slices.SortFunc(all, func(a, b schema.Order) int { return b.CreatedAt.Compare(a.CreatedAt) })
	from := min((f.Page-1)*f.Limit, len(all))
	return len(all), all[from:min(from+f.Limit, len(all))], nil
}

func (w *apiWorld) LiveByClientOrder(_ context.Context, appid, coid string) (*schema.Order, error) {
	for i, o := range w.orders {
		if o.AppID == appid && o.ClientOrderID == coid && o.Status.Live() {
			return &w.orders[i], nil
		}
	}
	return nil, nil
}

func (w *apiWorld) RefundFor(_ context.Context, acct *merchant.Account, ask command.RefundAsk) (*schema.Refund, *schema.Order, bool, error) {
	o, err := w.OrderFor(context.Background(), acct, ask.OrderID)
	if err != nil {
		return nil, nil, false, err
	}
	r := &schema.Refund{ID: "rf-1", OrderID: o.ID, ClientRefundID: ask.ClientRefundID, Amount: ask.Amount, Status: schema.RefundSucceeded}
	if w.refund != "" {
		r.Status, r.Error = w.refund, "declined by the provider"
	}
	return r, o, false, nil
}

func (w *apiWorld) Balances(_ context.Context, appid string) ([]journal.Balance, error) {
	return []journal.Balance{{Currency: "USD", Available: 999}, {Currency: "CNY", Available: w.avail[appid]}}, nil
}

func (w *apiWorld) Total(_ context.Context, appid string) (int, error) { return w.totals[appid], nil }

func newTestAPI(t *testing.T, v apiVectors, w *apiWorld) *API {
	t.Helper()
	types, err := ParseTypes(v.Types)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAPI(APIDeps{Accounts: w, Orders: w, Live: w, Refunds: w, Balances: w, Totals: w, Types: Static(types),
		Now: func() time.Time { return time.Unix(v.Now, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
