package dispatcher

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/slotcheck"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// deskEnv is two merchants' deliveries driven through the scripts, and the
// merchant view over them.
type deskEnv struct {
	*scriptEnv
	other *merchant.Account
	m     *MerchantDeliveries
}

func newDeskEnv(t *testing.T) *deskEnv {
	t.Helper()
	e := newScriptEnv(t, 10*time.Second)
	slotcheck.Install(t, e.rdb)
	other, err := e.accounts.Create(context.Background(), merchant.NewAccount{Name: "other shop"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMerchantDeliveries(e.rdb)
	if err != nil {
		t.Fatal(err)
	}
	return &deskEnv{scriptEnv: e, other: other, m: m}
}

// scheduleFor schedules a paid delivery of appid's order on shard, its
// event at paid.
func (e *deskEnv) scheduleFor(appid string, shard schema.Shard, paid time.Time) string {
	e.t.Helper()
	o := e.paidOrder(hostA)
	o.AppID, o.CompletedAt = appid, paid
	o.ID = schema.NewOrderID(o.CreatedAt, shard)
	e.publish(o, schema.EventPaid)
	added, errs := e.s.addAll(context.Background(), []delivery{{shard: shard, id: o.ID, url: hostA, appid: appid,
		params: callbackParams(o), paid: paid}})
	if errs[0] != nil || !added[0] {
		e.t.Fatalf("schedule %s: %v %v", o.ID, added[0], errs[0])
	}
	return o.ID
}

// outcome is how settle records an attempt: acknowledged when reason is
// empty, else failed with the next attempt after next (none when negative).
type outcome struct {
	reason string
	next   time.Duration
}

var (
	deskOK    = outcome{next: -1}
	deskFail  = func(reason string) outcome { return outcome{reason: reason, next: -1} }
	deskRetry = func(reason string) outcome { return outcome{reason: reason, next: time.Hour} }
)

// settle claims every due delivery and records each one's planned attempt;
// every due delivery must be in the plan (a claimed one left unrecorded
// would hold its lease).
func (e *deskEnv) settle(plan map[string]outcome) {
	e.t.Helper()
	var asks []claimAsk
	for _, sh := range schema.AllShards() {
		asks = append(asks, claimAsk{shard: sh, want: 100, perHost: 100})
	}
	jobs, err := e.s.claimAll(context.Background(), asks, "t:")
	if err != nil {
		e.t.Fatal(err)
	}
	if len(jobs) != len(plan) {
		e.t.Fatalf("claimed %d deliveries, planned %d", len(jobs), len(plan))
	}
	for _, j := range jobs {
		o, planned := plan[j.id]
		if !planned {
			e.t.Fatalf("%s claimed but not planned", j.id)
		}
		rec := schema.WebhookAttempt{At: schema.WireTime(time.Now()), Attempt: j.seq, Status: 500, Error: o.reason, Success: o.reason == ""}
		if _, _, err := e.s.record(context.Background(), j, o.reason == "", rec, o.next, ""); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *deskEnv) list(appid string, f ListFilter) map[string]DeliveryRow {
	e.t.Helper()
	rows, err := e.m.List(context.Background(), appid, f)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]DeliveryRow{}
	for _, r := range rows {
		out[r.DeliveryID] = r
	}
	return out
}

// TestMerchantDeliveriesListOneMerchant: pending, failing, dead and
// delivered show with their last error; another merchant's never appear,
// though they share the shard.
func TestMerchantDeliveriesListOneMerchant(t *testing.T) {
	e := newDeskEnv(t)
	now := time.Now()
	failing := e.scheduleFor(e.acct.AppID, 7, now.Add(-2*time.Minute))
	dead := e.scheduleFor(e.acct.AppID, 3, now.Add(-time.Minute))
	delivered := e.scheduleFor(e.acct.AppID, 9, now)
	theirs := e.scheduleFor(e.other.AppID, 3, now)
	e.settle(map[string]outcome{failing: deskRetry("HTTP 500"), dead: deskFail("connection refused"), theirs: deskFail("HTTP 502"), delivered: deskOK})
	pending := e.scheduleFor(e.acct.AppID, 3, now.Add(-3*time.Minute))
	rows := e.list(e.acct.AppID, ListFilter{})
	if len(rows) != 4 {
		t.Fatalf("rows %v, want pending, failing, dead and delivered", rows)
	}
	for _, tt := range []struct {
		name, id, state, lastErr string
	}{
		{"pending", pending, ViewPending, ""},
		{"failing", failing, ViewFailing, "HTTP 500"},
		{"dead", dead, ViewDead, "connection refused"},
		{"delivered", delivered, ViewDelivered, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := rows[tt.id]
			if !ok || r.State != tt.state || r.LastError != tt.lastErr || r.PaymentID != tt.id {
				t.Fatalf("row %+v (listed %v), want state %s, last error %q", r, ok, tt.state, tt.lastErr)
			}
		})
	}
	if _, ok := e.list(e.other.AppID, ListFilter{})[theirs]; !ok {
		t.Fatal("the other merchant does not see its own dead delivery")
	}
	// An index that names another merchant's delivery (a bug, a hand
	// edit) still lists nothing of it: the delivery's own appid decides.
	e.rdb.ZAdd(context.Background(), schema.WebhookMerchantKey(3, e.acct.AppID), redis.Z{Score: float64(now.UnixMilli()), Member: theirs})
	e.rdb.ZAdd(context.Background(), schema.WebhookMerchantAllKey(3, e.acct.AppID), redis.Z{Score: float64(now.UnixMilli()), Member: theirs})
	for _, f := range []ListFilter{{}, {State: ViewDead}, {Query: theirs}} {
		if r, ok := e.list(e.acct.AppID, f)[theirs]; ok {
			t.Fatalf("%+v: another merchant's delivery listed: %+v", f, r)
		}
	}
	if got := e.list(e.acct.AppID, ListFilter{State: ViewDead}); len(got) != 1 || got[dead].State != ViewDead {
		t.Fatalf("dead filter: %v", got)
	}
	if got := e.list(e.acct.AppID, ListFilter{Limit: 1}); len(got) != 1 || got[delivered].DeliveryID == "" {
		t.Fatalf("newest first, limit 1: %v", got)
	}
	if got := e.list(e.acct.AppID, ListFilter{Before: now.Add(-90 * time.Second)}); len(got) != 2 || got[dead].DeliveryID != "" {
		t.Fatalf("before: %v", got)
	}
}

// TestMerchantResendDeadOfARange: only the merchant's dead deliveries of
// the range are queued; pending ones, dead ones outside the range and
// another merchant's are left.
func TestMerchantResendDeadOfARange(t *testing.T) {
	e := newDeskEnv(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	in1 := e.scheduleFor(e.acct.AppID, 2, base.Add(10*time.Minute))
	in2 := e.scheduleFor(e.acct.AppID, 11, base.Add(20*time.Minute))
	before := e.scheduleFor(e.acct.AppID, 2, base.Add(-10*time.Minute))
	theirs := e.scheduleFor(e.other.AppID, 2, base.Add(15*time.Minute))
	e.settle(map[string]outcome{in1: deskFail("HTTP 500"), in2: deskFail("HTTP 500"), before: deskFail("HTTP 500"), theirs: deskFail("HTTP 500")})
	pendingIn := e.scheduleFor(e.acct.AppID, 2, base.Add(15*time.Minute))
	res, err := e.m.ResendDead(ctx, e.acct.AppID, base, base.Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if res.Queued != 2 || res.More {
		t.Fatalf("result %+v, want 2 queued", res)
	}
	for _, tt := range []struct {
		name, id, man string
		shard         schema.Shard
	}{
		{"in range", in1, StateDead, 2}, {"in range, other shard", in2, StateDead, 11},
		{"before the range", before, "", 2}, {"pending", pendingIn, "", 2}, {"another merchant's", theirs, "", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if man := e.rdb.HGet(ctx, schema.WebhookKey(tt.shard, tt.id), "man").Val(); man != tt.man {
				t.Fatalf("man=%q, want %q", man, tt.man)
			}
		})
	}
}

// TestMerchantSuccessRate counts one merchant's attempts of the day across
// shards, and not another's.
func TestMerchantSuccessRate(t *testing.T) {
	e := newDeskEnv(t)
	ctx := context.Background()
	e.settle(map[string]outcome{
		e.scheduleFor(e.acct.AppID, 1, time.Now()):  deskOK,
		e.scheduleFor(e.acct.AppID, 8, time.Now()):  deskOK,
		e.scheduleFor(e.acct.AppID, 8, time.Now()):  deskRetry("HTTP 500"),
		e.scheduleFor(e.other.AppID, 8, time.Now()): deskFail("HTTP 500"),
	})
	r, err := e.m.SuccessRate(ctx, e.acct.AppID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Attempts != 3 || r.Succeeded != 2 || len(r.Hours) != 24 || r.Hours[23].Attempts != 3 {
		t.Fatalf("rate %+v, want 2 of 3 in the last hour", r)
	}
	if p := r.Percent(); p < 66 || p > 67 {
		t.Fatalf("percent %v", p)
	}
	o, err := e.m.SuccessRate(ctx, e.other.AppID)
	if err != nil || o.Attempts != 1 || o.Succeeded != 0 {
		t.Fatalf("other merchant's rate %+v, %v", o, err)
	}
	if ttl := e.rdb.PTTL(ctx, schema.WebhookRateKey(8, e.acct.AppID, time.Now().Unix()/3600)).Val(); ttl <= 24*time.Hour || ttl > rateKept {
		t.Fatalf("counter ttl %v, want just over a day", ttl)
	}
}
