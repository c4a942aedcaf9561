package command

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestChannelCapUnderConcurrency: two hundred creates at once against a
// daily count cap of ten on the only channel: exactly ten orders are
// ready, every other create is method_unavailable, and the counter never
// passes ten.
func TestChannelCapUnderConcurrency(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "default")
	r.set(t, "default", channel.Settings{DailyCount: 10})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ready, refused, other := 0, 0, []error{}
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := r.create("100")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && o.Status == schema.StatusReady:
				ready++
			case platform.KindOf(err) == platform.KindMethodUnavailable:
				refused++
			default:
				other = append(other, err)
			}
		}()
	}
	wg.Wait()
	if ready != 10 || refused != 190 || len(other) != 0 {
		t.Fatalf("ready %d, method_unavailable %d, other %v; want 10, 190, none", ready, refused, other)
	}
	u, err := channel.NewCaps(h.rdb).Used(context.Background(), r.ref(schema.MethodWalletA, "default"), channel.Settings{}.Day(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if u.Count != 10 || u.Amount != 100000 {
		t.Errorf("cap use = %+v, want 10 orders of 100.00", u)
	}
}

// TestChannelAmountCap: a daily amount cap takes orders while they fit,
// then the next order goes to the next channel, and without one the
// method is unavailable.
func TestChannelAmountCap(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	r.set(t, "a", channel.Settings{DailyAmount: 25000})
	r.set(t, "b", channel.Settings{Priority: 1, DailyAmount: 20000})
	var got []string
	for range 4 {
		got = append(got, r.mustReady(t, "100").Channel)
	}
	if strings.Join(got, ",") != "a,a,b,b" {
		t.Errorf("channels = %v, want a,a,b,b (a takes 250.00, b 200.00)", got)
	}
	_, err := r.create("100")
	wantKind(t, err, platform.KindMethodUnavailable)
}

// TestChannelCapDayInItsZone: a cap counts the channel's own day. At 23:59
// and 00:01 in Shanghai the UTC date is the same, the local date is not:
// the cap of one order a day takes one order at each.
func TestChannelCapDayInItsZone(t *testing.T) {
	now := time.Date(2026, 3, 10, 15, 59, 0, 0, time.UTC) // 23:59 in Shanghai
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newRedisHarness(t, withClock(clock))
	r := h.withChannels(t, "default")
	r.set(t, "default", channel.Settings{DailyCount: 1, TimeZone: "Asia/Shanghai"})
	r.mustReady(t, "100")
	_, err := r.create("100")
	wantKind(t, err, platform.KindMethodUnavailable)
	mu.Lock()
	now = now.Add(2 * time.Minute) // 00:01 the next day in Shanghai, same UTC day
	mu.Unlock()
	r.mustReady(t, "100")
}

// TestChannelFailover: a channel that does not answer (5xx, connection
// failure, time-out) is left for the next one; the order is ready on that
// one, and the failed attempt is on its timeline and told to the breaker.
func TestChannelFailover(t *testing.T) {
	for _, tt := range []struct {
		name, reason string
		err          error
		delay        time.Duration
	}{
		{"http 5xx", channel.ReasonHTTP5xx, fmt.Errorf("walleta create: %w", errors.Join(provider.ErrUnavailable, provider.ErrHTTP5xx)), 0},
		{"transport", channel.ReasonTransport, fmt.Errorf("walleta create: %w", errors.Join(provider.ErrUnavailable, provider.ErrTransport)), 0},
		{"time-out", channel.ReasonTimeout, nil, time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			r := h.withChannels(t, "a", "b")
			r.set(t, "b", channel.Settings{Priority: 1})
			h.uc.Create.init.route.budget = 200 * time.Millisecond
			r.fail("a", tt.err)
			r.provs["a"].Delay = tt.delay
			o := r.mustReady(t, "100")
			if o.Channel != "b" {
				t.Errorf("order on %q, want b", o.Channel)
			}
			if got := r.initRecords(o.ID); !slices.Equal(got, []string{"a:" + tt.reason}) {
				t.Errorf("timeline init attempts = %v, want [a:%s]", got, tt.reason)
			}
			if got := r.health.reports; !slices.Equal(got, []string{"a:" + tt.reason, "b:ok"}) {
				t.Errorf("breaker told %v", got)
			}
		})
	}
}

// TestChannelRefusals: a refusal naming an operator keyword (an account
// restriction) fails over; a plain refusal is the provider's word on the
// payment and fails the order without asking another channel.
func TestChannelRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		ready     bool
	}{
		{"keyword", "walleta: ACQ.ACCOUNT_RESTRICTED merchant account restricted by risk control", true},
		{"plain", "walleta: payer's card declined", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			r := h.withChannels(t, "a", "b")
			r.set(t, "b", channel.Settings{Priority: 1})
			if err := r.store.SetKeywords(context.Background(), []string{"account restricted"}, testEntry()); err != nil {
				t.Fatal(err)
			}
			r.load(t)
			r.fail("a", fmt.Errorf("%s: %w", tt.msg, provider.ErrRefused))
			o, err := r.create("100")
			if !tt.ready {
				wantKind(t, err, platform.KindProviderRefused)
				if n := r.provs["b"].Calls.Load(); n != 0 {
					t.Errorf("channel b asked %d times after a plain refusal", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := h.order(t, o.ID); got.Status != schema.StatusReady || got.Channel != "b" {
				t.Errorf("order %s on %q, want ready on b", got.Status, got.Channel)
			}
			if got := r.initRecords(o.ID); !slices.Equal(got, []string{"a:keyword"}) {
				t.Errorf("timeline init attempts = %v", got)
			}
		})
	}
}

// TestChannelBudgetSpent: when every channel holds the request, each gets
// its share of the budget and the order fails as a provider that did not
// answer, every attempt on its timeline.
func TestChannelBudgetSpent(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b", "c")
	// Each share (300 ms) dwarfs the Redis steps between attempts, so a
	// loaded machine does not spend the last channel's share on them.
	h.uc.Create.init.route.budget = 900 * time.Millisecond
	for _, p := range r.provs {
		p.Delay = time.Hour
	}
	o, err := r.create("100")
	wantKind(t, err, platform.KindUnavailable)
	if o != nil {
		t.Fatalf("an order was answered: %+v", o)
	}
	var id string
	for _, p := range r.provs {
		if v, ok := p.Last.Load().(provider.Payment); ok {
			id = v.OrderID
		}
	}
	if st := h.order(t, id).Status; st != schema.StatusFailed {
		t.Errorf("order is %s, want failed", st)
	}
	if got := r.initRecords(id); !slices.Equal(got, []string{"a:timeout", "b:timeout", "c:timeout"}) {
		t.Errorf("timeline init attempts = %v", got)
	}
}

// TestChannelBreakerSkips: a channel whose breaker refuses the probe is
// not asked.
func TestChannelBreakerSkips(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	r.set(t, "b", channel.Settings{Priority: 1})
	r.health.closed = map[string]bool{"a": true}
	if o := r.mustReady(t, "100"); o.Channel != "b" || r.provs["a"].Calls.Load() != 0 {
		t.Errorf("order on %q, a asked %d times", o.Channel, r.provs["a"].Calls.Load())
	}
}

// TestChannelDisabledInFlight: a channel disabled while its orders are
// open takes no new order, and its open order still settles by its
// notification.
func TestChannelDisabledInFlight(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "default", "alt")
	r.set(t, "alt", channel.Settings{Priority: 1})
	first := r.mustReady(t, "100")
	if first.Channel != "default" {
		t.Fatalf("first order on %q", first.Channel)
	}
	r.set(t, "default", channel.Settings{Disabled: true})
	if o := r.mustReady(t, "100"); o.Channel != "alt" {
		t.Errorf("order after disabling on %q, want alt", o.Channel)
	}
	res := h.notify("/sandbox", fakeNote{Order: first.ID, Outcome: "paid", Amount: "100", Currency: "CNY", Charge: first.ProviderRef}, false)
	if res.Status != 200 {
		t.Fatalf("notify: %d %s", res.Status, res.Raw)
	}
	if st := h.order(t, first.ID).Status; st != schema.StatusPaid {
		t.Errorf("order on the disabled channel is %s, want paid", st)
	}
}

// TestChannelPinNarrows: a merchant's pinned set overrides the ranking.
func TestChannelPinNarrows(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	if err := r.store.SetPin(context.Background(), h.acct.AppID, true, schema.MethodWalletA, []string{"b"}, testEntry()); err != nil {
		t.Fatal(err)
	}
	r.load(t)
	if o := r.mustReady(t, "100"); o.Channel != "b" {
		t.Errorf("pinned order on %q, want b", o.Channel)
	}
}

// TestChannelModes: the method's mode ranks its channels at create.
func TestChannelModes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mode  channel.Mode
		a, b  channel.Settings
		check func(got []string) bool
	}{
		{"priority", channel.ModePriority, channel.Settings{Priority: 5}, channel.Settings{Priority: 1},
			func(got []string) bool { return !slices.Contains(got, "a") }},
		{"round robin", channel.ModeRoundRobin, channel.Settings{}, channel.Settings{},
			func(got []string) bool {
				return strings.Count(strings.Join(got, ","), "a") == 10 && got[0] != got[1]
			}},
		{"weighted", channel.ModeWeighted, channel.Settings{Weight: 1}, channel.Settings{Weight: 1000},
			// b's share is 1000/1001 per order: 20 orders on a would take
			// weights that are not honoured.
			func(got []string) bool { return strings.Count(strings.Join(got, ","), "b") >= 15 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			r := h.withChannels(t, "a", "b")
			r.set(t, "a", tt.a)
			r.set(t, "b", tt.b)
			if err := r.store.SetMode(context.Background(), true, schema.MethodWalletA, tt.mode, testEntry()); err != nil {
				t.Fatal(err)
			}
			r.load(t)
			var got []string
			for range 20 {
				got = append(got, r.mustReady(t, "100").Channel)
			}
			if !tt.check(got) {
				t.Errorf("channels in %s mode: %v", tt.mode, got)
			}
		})
	}
}

// TestChannelUnavailableWords: without an eligible channel a create is
// 400 method_unavailable in the merchant's terms, naming no channel; the
// select page does not offer the method; a deferred provider method is
// refused at create.
func TestChannelUnavailableWords(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "acct-7f3a")
	o := h.selectOrder("CNY", "100", "")
	r.set(t, "acct-7f3a", channel.Settings{MaxAmount: 5000})
	_, err := r.create("100")
	wantKind(t, err, platform.KindMethodUnavailable)
	if msg := err.Error(); strings.Contains(msg, "acct-7f3a") || !strings.Contains(msg, "paymentMethod wallet_a is not available for this payment") {
		t.Errorf("message %q", msg)
	}
	opts, err := h.uc.Choose.Methods(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := optionList(opts); strings.Contains(got, "wallet_a") {
		t.Errorf("select page offers %s", got)
	}
	r.setFor(t, schema.MethodFiatPSP, channel.Default, channel.Settings{Disabled: true})
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "fiatpsp", "USD"
	_, _, err = h.create.Create(context.Background(), signed(p, h.acct.APIKey), netip.MustParseAddr(testIP), false)
	wantKind(t, err, platform.KindMethodUnavailable)
}

// countingConf counts the router's look-ups of configured channels.
type countingConf struct {
	channel.Configured
	n atomic.Int64
}

func (c *countingConf) Channels(m schema.Method, sandbox bool) []string {
	c.n.Add(1)
	return c.Configured.Channels(m, sandbox)
}

// TestSelectCreateRoutesNothing: the default create (select) never asks
// the router; a create of a method initialised at create does.
func TestSelectCreateRoutesNothing(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a")
	rt := h.uc.Create.init.route
	conf := &countingConf{Configured: rt.providers}
	rt.router = channel.NewRouter(r.dir, conf)
	h.selectOrder("CNY", "100", "")
	if n := conf.n.Load(); n != 0 {
		t.Errorf("a select create routed %d times", n)
	}
	r.mustReady(t, "100")
	if conf.n.Load() == 0 {
		t.Error("a wallet_a create was not routed")
	}
}

// TestFiatpspConfirmRoutesTheCharge: fiatpsp is routed at the payer's
// system choice, on what that system charges: 100.00 USD is 90.00 in EUR,
// within a channel's per-order maximum of 95.00, and 100.00 in USD is not.
// A system no channel takes leaves the order waiting for another choice.
func TestFiatpspConfirmRoutesTheCharge(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a")
	id := h.deferred("fiatpsp", "USD", "100")
	r.setFor(t, schema.MethodFiatPSP, channel.Default, channel.Settings{MaxAmount: 9500})
	ctx := context.Background()
	_, err := h.uc.Confirm.ConfirmFiatpsp(ctx, id, "7")
	wantKind(t, err, platform.KindMethodUnavailable)
	if o := h.order(t, id); o.NextAction != schema.NextFiatpspSelect {
		t.Fatalf("after a system no channel takes: next action %q", o.NextAction)
	}
	o, err := h.uc.Confirm.ConfirmFiatpsp(ctx, id, "12")
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != schema.StatusReady || o.Channel != channel.Default || o.ChargeCurrency != "EUR" {
		t.Errorf("order %s on %q charged in %s", o.Status, o.Channel, o.ChargeCurrency)
	}
}
