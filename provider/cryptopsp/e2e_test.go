package cryptopsp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	cryptopsp "github.com/paygate/gateway/provider/cryptopsp"
	cryptopspsim "github.com/paygate/gateway/web/sandbox/cryptopsp"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// gateway stands in for the gateway over real HTTP: the simulator mounted
// at /sandbox/provider/cryptopsp and a receiver at the notification path
// that verifies with the sandbox adapter.
type gateway struct {
	srv *httptest.Server
	sim *cryptopspsim.Simulator
	ad  *cryptopsp.Adapter
	got providertest.Receiver // the notification endpoint
}

func newGateway(t *testing.T) *gateway {
	t.Helper()
	g := &gateway{}
	app := sandboxtest.App()
	g.srv = sandboxtest.NewServer(app)
	t.Cleanup(g.srv.Close)
	base := g.srv.URL + "/sandbox/provider/" + cryptopsp.Family
	n := &provider.Notifier{Client: g.srv.Client(), Delays: []time.Duration{20 * time.Millisecond}}
	g.sim = cryptopspsim.NewSimulator(cryptopspsim.SandboxSimConfig(base).WithCost(simkit.FixedCost(providertest.StatementSchedule)), &provider.MemState{}, n, nil)
	g.sim.Register(app.Group("/sandbox/provider/" + cryptopsp.Family))
	ad, err := cryptopsp.New(cryptopsp.SandboxConfig(base), providertest.Caller(t, cryptopsp.Family, provider.CallerConfig{Timeout: 2 * time.Second}, g.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	g.ad = ad
	g.got.Adapter = ad
	app.Post("/api/gatewaynotification/"+cryptopsp.Family+"/*", sandboxtest.Handle(func(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
		return g.got.Receive(ctx, d.Header, d.Body, d.Path)
	}))
	return g
}

func (g *gateway) payment(orderID, pay string, amount schema.Amount) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: "cryptopsp", Charge: provider.Money{Amount: amount, Currency: "USD"},
		Description: "Order 42", PayCurrency: pay, NotifyURL: g.srv.URL + "/api/gatewaynotification/cryptopsp/ipn",
		SuccessURL: "https://shop.example/ok", CancelURL: "https://shop.example/cancel",
	}
}

// browse opens the invoice page and clicks outcome, as a tester would.
func browse(t *testing.T, g *gateway, pageURL, outcome, back string) {
	t.Helper()
	res := providertest.Press(t, providertest.NoRedirects(g.srv.Client()), pageURL, outcome, "BTC")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != back {
		t.Fatalf("after %s: HTTP %d to %q", outcome, res.StatusCode, res.Header.Get("Location"))
	}
}

func TestEndToEnd(t *testing.T) {
	usd100 := provider.Money{Amount: 100_00, Currency: "USD"}
	tests := []struct {
		name    string
		outcome string
		want    provider.Outcome
		paid    provider.Money
		back    string
		viaPage bool
	}{
		{"page pays", "pay", provider.OutcomePaid, usd100, "https://shop.example/ok", true},
		{"page fails", "fail", provider.OutcomeFailed, provider.Money{}, "https://shop.example/cancel", true},
		{"settle pays", "pay", provider.OutcomePaid, usd100, "", false},
		{"settle fails", "fail", provider.OutcomeFailed, provider.Money{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGateway(t)
			ctx := context.Background()
			order := "P-" + tt.outcome
			in, err := g.ad.Initialise(ctx, g.payment(order, "BTC", 100_00))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(in.ProviderURL, g.srv.URL+"/sandbox/provider/cryptopsp/payment?iid=") || in.Ref == "" {
				t.Fatalf("init %+v", in)
			}
			if tt.viaPage {
				browse(t, g, in.ProviderURL, tt.outcome, tt.back)
			} else if err := g.sim.Settle(ctx, in.Ref, tt.outcome == "pay"); err != nil {
				t.Fatal(err)
			}
			d := g.got.WaitFor(t, tt.want)
			if d.N.OrderID != order || d.N.Paid != tt.paid || d.N.Ref == "" || d.N.Fields["invoice_id"] != in.Ref {
				t.Fatalf("notification %+v", d.N)
			}
			q, err := g.ad.Query(ctx, order, d.N.Ref)
			if err != nil || q.Outcome != tt.want || q.Paid != tt.paid {
				t.Fatalf("query %+v %v", q, err)
			}
			if _, err := g.ad.Query(ctx, order, in.Ref); !errors.Is(err, provider.ErrNotFound) {
				t.Fatalf("query by invoice id: %v", err)
			}
		})
	}
}

func TestEndToEndSendsConfirmingFirst(t *testing.T) {
	g := newGateway(t)
	in, err := g.ad.Initialise(context.Background(), g.payment("P-order", "eth", 50_00))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	g.got.WaitFor(t, provider.OutcomePaid)
	got := g.got.All()
	if len(got) != 2 || got[0].N.Outcome != provider.OutcomePending || got[0].N.Fields["payment_status"] != "confirming" {
		t.Fatalf("deliveries %+v", got)
	}
	if err := g.sim.Settle(context.Background(), in.Ref, false); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("failing a paid invoice: %v", err)
	}
}

func TestOptionsAndMinimum(t *testing.T) {
	g := newGateway(t)
	ctx := context.Background()
	list, err := g.ad.Currencies(ctx)
	if err != nil || !reflect.DeepEqual(list, []string{"btc", "eth", "ltc", "trx", "usdttrc20"}) {
		t.Fatalf("currencies %v %v", list, err)
	}
	tests := []struct {
		fiat, crypto string
		want         provider.Money
	}{
		{"USD", "btc", provider.Money{Amount: 30_00, Currency: "USD"}},
		{"eur", "ETH", provider.Money{Amount: 13_80, Currency: "EUR"}},
		{"NZD", "trx", provider.Money{Amount: 3_96, Currency: "NZD"}},
	}
	for _, tt := range tests {
		t.Run(tt.fiat+" "+tt.crypto, func(t *testing.T) {
			got, err := g.ad.MinAmount(ctx, tt.fiat, tt.crypto)
			if err != nil || got != tt.want {
				t.Fatalf("min %+v %v, want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := g.ad.MinAmount(ctx, "USD", "doge"); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("unknown coin: %v", err)
	}
	if _, err := g.ad.Initialise(ctx, g.payment("P-small", "btc", 10_00)); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("under the minimum: %v", err)
	}
	if _, err := g.ad.Initialise(ctx, g.payment("P-at-min", "btc", 30_00)); err != nil {
		t.Fatalf("at the minimum: %v", err)
	}
}
