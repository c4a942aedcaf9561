package admin

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// countingRefunds is a provider family that refunds once per refund id and
// counts its calls; down makes it unreachable.
type countingRefunds struct {
	provider.Adapter
	mu    sync.Mutex
	calls int
	down  bool
}

func (f *countingRefunds) Refund(_ context.Context, r provider.RefundRequest) (provider.RefundResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.down {
		return provider.RefundResult{}, provider.ErrUnavailable
	}
	return provider.RefundResult{Ref: "PR-" + r.RefundID}, nil
}

func (f *countingRefunds) n() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

type oneFamily struct{ a provider.Adapter }

func (o oneFamily) For(m schema.Method, _ bool) (provider.Adapter, bool) {
	return o.a, m == schema.MethodWalletA
}

func (o oneFamily) ForChannel(m schema.Method, sandbox bool, id string) (provider.Adapter, bool) {
	return o.a, m == schema.MethodWalletA && (id == "" || id == "default")
}

// refundableMismatch is a wallet_a order with a mismatch whose evidence
// names the provider's charge.
func refundableMismatch(t *testing.T, e *env) string {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: e.appid, Sandbox: true, Amount: 250_00,
		Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusCancelled, CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := e.store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	shard, _ := schema.ParseOrderID(o.ID)
	rec, _ := json.Marshal(schema.NotificationRecord{At: now, Provider: "wallet_a", OrderID: o.ID, Outcome: "paid", Paid: "250.00 CNY",
		Ref: "2026112722001", Verdict: schema.VerdictIgnored, Detail: "paid after the order was cancelled"})
	e.rdb.LPush(ctx, schema.NotificationsKey(shard, o.ID), rec)
	e.rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(now.UnixMilli()), Member: o.ID})
	return o.ID
}

// TestBrowserProviderRefund: support and the auditor find no refund form
// on a mismatch and their forged posts are refused with 403, the provider
// never called and nothing changed; the administrator's refund with the
// provider down leaves the exception open with the attempt shown (axe
// clean, screenshots at 360 and 1280 px); the second refund closes it with
// the provider's reference; a double post after it calls nothing.
func TestBrowserProviderRefund(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := &countingRefunds{down: true}
	e.exc.WithRefunds(oneFamily{f})
	id := refundableMismatch(t, e)
	base := e.serve(t)
	b := browser.New(t)
	row := `[data-exception="mismatch:` + id + `"]`
	action := base + "/exceptions/" + id + "/provider-refund"
	for _, who := range []string{"sam@ops.test", "al@ops.test"} {
		t.Run(who+" refused", func(t *testing.T) {
			pg := b.NewPage(browser.Wide)
			e.browserLogin(t, pg, base, who)
			pg.Go(base + "/exceptions")
			var offered bool
			pg.Eval(`document.querySelector('`+row+` form[data-provider-refund]') !== null`, &offered)
			if offered {
				t.Fatal("offered the provider refund")
			}
			before := e.state(t)
			forge(t, pg, action, map[string]string{"confirm": "1"}, true)
			pg.AllowErrorStatus(403)
			if e.state(t) != before || f.n() != 0 {
				t.Fatalf("a refused refund changed Redis or called the provider (%d)", f.n())
			}
		})
	}
	pg := b.NewPage(browser.Wide)
	e.browserLogin(t, pg, base, "ann@ops.test")
	pg.Go(base + "/exceptions")
	shoot(t, pg, "admin-exceptions-provider-refund")
	pg.SetWidth(browser.Wide)
	pg.Submit(row + ` form[data-provider-refund]`)
	pg.WaitVisible("[data-confirm-provider-refund]") // the second step: nothing asked yet
	pg.Submit(`form[data-confirm-provider-refund]`)
	pg.WaitTrue(`document.querySelector("[data-error]") !== null`)
	pg.AllowErrorStatus(503)
	pg.Go(base + "/exceptions")
	var attempt bool
	pg.Eval(`document.querySelector('`+row+` [data-refund-attempt]') !== null`, &attempt)
	if !attempt || f.n() != 1 {
		t.Fatalf("the unanswered refund is not shown on the open exception (calls %d)", f.n())
	}
	shoot(t, pg, "admin-exceptions-refund-unanswered")
	pg.SetWidth(browser.Wide)
	f.mu.Lock()
	f.down = false
	f.mu.Unlock()
	pg.Submit(row + ` form[data-provider-refund]`)
	pg.WaitVisible("[data-confirm-provider-refund]") // the second step: nothing asked yet
	pg.Submit(`form[data-confirm-provider-refund]`)
	pg.WaitVisible(".flash")
	var still bool
	pg.Eval(`document.querySelector('`+row+`') !== null`, &still)
	if still || f.n() != 2 {
		t.Fatalf("after the refund: still listed %v, calls %d", still, f.n())
	}
	forge(t, pg, action, map[string]string{"confirm": "1"}, true)
	if f.n() != 2 {
		t.Fatalf("a second post called the provider again (%d calls)", f.n())
	}
	pg.Go(base + "/exceptions?handled=1")
	var note string
	pg.Eval(`document.querySelector('`+row+`').textContent`, &note)
	if !strings.Contains(note, "provider refund PR-XR") {
		t.Fatalf("the handled row says %q", note)
	}
	pg.AssertNoConsoleErrors(t)
}
