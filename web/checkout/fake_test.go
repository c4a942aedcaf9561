package checkout

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// fakeOrders is the command side as the pages see it, in memory: enough
// behaviour to drive every page, none of the command side's rules beyond
// what a page must react to.
type fakeOrders struct {
	mu       sync.Mutex
	orders   map[string]*schema.Order
	methods  []schema.MethodOption
	systems  []schema.SystemOption
	cryptos  []schema.CryptoOption
	networks []schema.USDTNetwork
	calls    []string
}

func newFakeOrders() *fakeOrders {
	return &fakeOrders{orders: map[string]*schema.Order{},
		networks: []schema.USDTNetwork{{Name: "TRC20", Address: "TXYZabcdefghijkmnopqrstuvwxyz1234"}, {Name: "BEP20", Address: "0x" + "ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12"}}}
}

func (f *fakeOrders) add(o schema.Order) *schema.Order {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o.CreatedAt.IsZero() {
		o.CreatedAt = time.Now()
	}
	f.orders[o.ID] = &o
	return &o
}

func (f *fakeOrders) get(id string) (*schema.Order, error) {
	o, ok := f.orders[id]
	if !ok {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	cp := *o
	return &cp, nil
}

func (f *fakeOrders) change(id, call string, fn func(o *schema.Order) error) (*schema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	o, ok := f.orders[id]
	if !ok {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	if err := fn(o); err != nil {
		return nil, err
	}
	cp := *o
	return &cp, nil
}

func (f *fakeOrders) Order(_ context.Context, id string) (*schema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.get(id)
}

func (f *fakeOrders) PollStatus(_ context.Context, id string) (schema.Status, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, err := f.get(id)
	if err != nil {
		return 0, "", err
	}
	return o.Status, o.ReturnURL, nil
}

func (f *fakeOrders) Methods(context.Context, *schema.Order) ([]schema.MethodOption, error) {
	return f.methods, nil
}

func (f *fakeOrders) ChooseMethod(_ context.Context, id string, m schema.Method) (*schema.Order, error) {
	return f.change(id, "choose "+string(m), func(o *schema.Order) error {
		if o.NextAction != schema.NextMethodSelect {
			return platform.Errorf(platform.KindConflict, "order %s was confirmed already", id)
		}
		o.Method, o.NextAction = m, ""
		return nil
	})
}

func (f *fakeOrders) Cancel(_ context.Context, id string) (*schema.Order, error) {
	return f.change(id, "cancel", func(o *schema.Order) error {
		if !o.Status.Live() {
			return platform.Errorf(platform.KindConflict, "order %s is %s", id, o.Status)
		}
		o.Status = schema.StatusCancelled
		return nil
	})
}

func (f *fakeOrders) FiatpspSystems(context.Context, *schema.Order) ([]schema.SystemOption, error) {
	return f.systems, nil
}

func (f *fakeOrders) ConfirmFiatpsp(_ context.Context, id, sys string) (*schema.Order, error) {
	return f.change(id, "fiatpsp "+sys, func(o *schema.Order) error { o.NextAction, o.FiatpspSystemID = "", sys; return nil })
}

func (f *fakeOrders) CryptoCurrencies(context.Context, *schema.Order) ([]schema.CryptoOption, error) {
	return f.cryptos, nil
}

func (f *fakeOrders) ConfirmCryptopsp(_ context.Context, id, cur string) (*schema.Order, error) {
	return f.change(id, "cryptopsp "+cur, func(o *schema.Order) error { o.NextAction, o.PayCurrency = "", cur; return nil })
}

func (f *fakeOrders) Expiry(o *schema.Order) time.Time { return o.CreatedAt.Add(30 * time.Minute) }

func (f *fakeOrders) USDTNetworks(bool) []schema.USDTNetwork { return f.networks }

func (f *fakeOrders) ChooseUSDTNetwork(_ context.Context, id, n string) (*schema.Order, error) {
	return f.change(id, "network "+n, func(o *schema.Order) error { o.Network = n; return nil })
}

func (f *fakeOrders) SubmitTxHash(_ context.Context, id, h string) (*schema.Order, error) {
	return f.change(id, "hash "+h, func(o *schema.Order) error { o.TxHash, o.NextAction = h, schema.NextUSDTReview; return nil })
}

func (f *fakeOrders) PayWithBalance(_ context.Context, id, payer string) (*schema.Order, error) {
	return f.change(id, "balance "+payer, func(o *schema.Order) error { o.Status, o.PaidWithBalance = schema.StatusPaid, true; return nil })
}

// fakePayers knows one account, "payer", with password "correct horse".
type fakePayers struct {
	balances map[string]schema.Amount
}

func (f *fakePayers) Login(_ context.Context, appid, pw string, _ netip.Addr) (string, *merchant.Account, error) {
	if appid != "payer" || pw != "correct horse" {
		return "", nil, platform.Errorf(platform.KindInvalidKey, "wrong account or password")
	}
	return "tok-payer", &merchant.Account{AppID: "payer"}, nil
}

func (f *fakePayers) Session(_ context.Context, tok string) (*merchant.Account, error) {
	if tok != "tok-payer" {
		return nil, platform.Errorf(platform.KindForbidden, "no session")
	}
	return &merchant.Account{AppID: "payer"}, nil
}

func (f *fakePayers) Logout(context.Context, string) error { return nil }

func (f *fakePayers) Balances(context.Context, string) (map[string]schema.Amount, error) {
	return f.balances, nil
}

func (f *fakeOrders) SimulateUSDTTransfer(_ context.Context, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "simulate")
	return "ab" + id, nil
}

// fakeMerchants knows every appid as "Tea & Cake <Shop>", a name with
// characters the pages must escape.
type fakeMerchants struct{}

func (fakeMerchants) Lookup(_ context.Context, appid string) (*merchant.Account, error) {
	return &merchant.Account{AppID: appid, Name: "Tea & Cake <Shop>"}, nil
}

// allPorts wires every port of the pages to the one fake.
func allPorts(f *fakeOrders) OrderPorts {
	return OrderPorts{Reads: f, Choose: f, Cancel: f, Steps: f, USDT: f, Balance: f}
}
