package epay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

type fakeAccounts map[string]*merchant.Account

func (f fakeAccounts) Lookup(_ context.Context, appid string) (*merchant.Account, error) {
	if a, ok := f[appid]; ok {
		return a, nil
	}
	return nil, merchant.ErrNotFound
}

// fakeOrders keeps orders by out_trade_no, as the command side's live
// clientOrderId index does.
type fakeOrders struct {
	byNo map[string]*schema.Order
	err  error
}

func (f *fakeOrders) CreateFor(_ context.Context, acct *merchant.Account, d command.Draft) (*schema.Order, bool, error) {
	if f.err != nil {
		return nil, false, f.err
	}
	if o, ok := f.byNo[d.ClientOrderID]; ok {
		return o, true, nil
	}
	o := &schema.Order{ID: "P" + d.ClientOrderID, AppID: acct.AppID, Amount: d.Amount, Currency: d.Currency, Method: d.Method,
		Description: d.Description, ClientOrderID: d.ClientOrderID, NotifyURL: d.NotifyURL, ReturnURL: d.ReturnURL,
		ClientIP: d.ClientIP, Door: d.Door, DoorType: d.DoorType, DoorParam: d.DoorParam}
	f.byNo[d.ClientOrderID] = o
	return o, false, nil
}

type noPrivate struct{}

func (noPrivate) Check(_ context.Context, raw string) error {
	if raw == "http://10.0.0.1/n" {
		return errors.New("private")
	}
	return nil
}

func newTestCreate(t *testing.T, orders *fakeOrders) *Create {
	t.Helper()
	types, err := ParseTypes("t1=wallet_a")
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewCreate(CreateDeps{Accounts: fakeAccounts{"1001": {AppID: "1001", APIKey: "k"}, "1002": {AppID: "1002", APIKey: "k", Disabled: true}},
		Orders: orders, Types: Static(types), Destinations: noPrivate{}, Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mapiParams(change func(Params)) Params {
	p := Params{"pid": "1001", "type": "t1", "out_trade_no": "A-1", "notify_url": "https://shop.example/n", "name": "Box",
		"money": "1.00", "clientip": "203.0.113.5"}
	change(p)
	if _, given := p["sign"]; !given {
		p["sign"] = Sign(p, "k")
	}
	return p
}

// TestCreate: the protocol's checks in its order, each refusal with its
// code, and the values a sound call hands the command side.
func TestCreate(t *testing.T) {
	set := func(k, v string) func(Params) { return func(p Params) { p[k] = v } }
	tests := []struct {
		name   string
		change func(Params)
		code   int
	}{
		{"sound", func(Params) {}, CodeOK},
		{"unknown pid", set("pid", "9"), CodeRefused},
		{"missing sign", set("sign", ""), CodeBadSign},
		{"sign_type other than MD5", set("sign_type", "RSA"), CodeBadSign},
		{"disabled pid, signed", set("pid", "1002"), CodeRefused},
		{"unknown parameter", set("shop", "1"), CodeRefused},
		{"splitting value", set("name", "Box&money=9.00"), CodeRefused},
		{"missing clientip", set("clientip", ""), CodeRefused},
		{"clientip not an address", set("clientip", "me"), CodeRefused},
		{"missing type", set("type", ""), CodeRefused},
		{"unmapped type", set("type", "t9"), CodeRefused},
		{"money three decimals", set("money", "1.001"), CodeRefused},
		{"money exponent", set("money", "1e2"), CodeRefused},
		{"money negative", set("money", "-1"), CodeRefused},
		{"notify_url private", set("notify_url", "http://10.0.0.1/n"), CodeRefused},
		{"notify_url not http", set("notify_url", "ftp://shop.example/n"), CodeRefused},
		{"param too long", set("param", string(make([]byte, MaxParam+1))), CodeRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestCreate(t, &fakeOrders{byNo: map[string]*schema.Order{}})
			o, err := h.Create(t.Context(), Call{Params: mapiParams(tt.change), API: true})
			var e *Error
			switch {
			case tt.code == CodeOK && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.code == CodeOK:
				if o.Door != schema.DoorEpay || o.DoorType != "t1" || o.Method != schema.MethodWalletA || o.Currency != "CNY" ||
					o.Amount != 100 || o.ClientOrderID != "A-1" || o.ClientIP != "203.0.113.5" {
					t.Fatalf("order %+v", o)
				}
			case !errors.As(err, &e) || e.Code != tt.code:
				t.Fatalf("err %v, want code %d", err, tt.code)
			}
		})
	}
}

// TestCreateReplay: the same out_trade_no answers its live order; with
// another value it is refused; submit.php without type is select.
func TestCreateReplay(t *testing.T) {
	orders := &fakeOrders{byNo: map[string]*schema.Order{}}
	h := newTestCreate(t, orders)
	first, err := h.Create(t.Context(), Call{Params: mapiParams(func(Params) {}), API: true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.Create(t.Context(), Call{Params: mapiParams(func(Params) {}), API: true})
	if err != nil || again != first {
		t.Fatalf("replay: %v, %v", again, err)
	}
	_, err = h.Create(t.Context(), Call{Params: mapiParams(func(p Params) { p["money"] = "2.00" }), API: true})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRefused {
		t.Fatalf("replay with another money: %v", err)
	}
	p := mapiParams(func(p Params) {
		delete(p, "type")
		delete(p, "clientip")
		p["out_trade_no"], p["return_url"] = "S-1", "https://shop.example/r"
	})
	o, err := h.Create(t.Context(), Call{Params: p, PayerIP: "198.51.100.1"})
	if err != nil || o.Method != schema.MethodSelect || o.ClientIP != "198.51.100.1" || o.DoorType != "" {
		t.Fatalf("submit.php without type: %+v, %v", o, err)
	}
}

// TestCreateDomainErrors: the command side's refusals keep their message
// under the protocol's code; our own failures stay errors.
func TestCreateDomainErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int // 0: not an *Error
	}{
		{"limits", platform.Errorf(platform.KindInvalidParameter, "amount 1.00 is below the minimum"), CodeRefused},
		{"no channel", platform.Errorf(platform.KindMethodUnavailable, "no channel"), CodeNotPlaced},
		{"rate limited", &platform.RateLimited{RetryAfter: time.Second}, CodeRefused},
		{"redis", errors.New("redis down"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestCreate(t, &fakeOrders{byNo: map[string]*schema.Order{}, err: tt.err})
			_, err := h.Create(t.Context(), Call{Params: mapiParams(func(Params) {}), API: true})
			var e *Error
			if got := errors.As(err, &e); got != (tt.code != 0) || (got && e.Code != tt.code) {
				t.Fatalf("err %v, want code %d", err, tt.code)
			}
		})
	}
}

func TestWithQuery(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"no query", "https://s.example/n", "https://s.example/n?a=1"},
		{"a query", "https://s.example/n?x=2", "https://s.example/n?x=2&a=1"},
		{"ends with ?", "https://s.example/n?", "https://s.example/n?a=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithQuery(tt.raw, "a=1"); got != tt.want {
				t.Fatalf("%q, want %q", got, tt.want)
			}
		})
	}
}
