package operator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// fakeResender is the real resend, recording the resends it queued.
type fakeResender struct {
	real *dispatcher.Webhooks
	got  []string
}

func (f *fakeResender) Resend(ctx context.Context, ask dispatcher.ResendAsk) error {
	if err := f.real.Resend(ctx, ask); err != nil {
		return err
	}
	p := ask.PaymentID
	if ask.RefundID != "" {
		p += "/" + ask.RefundID
	}
	f.got = append(f.got, p)
	return nil
}

// queue is an exceptions queue over this test's database of the real
// Redis, with one exception of every kind where the gateway keeps them,
// and the ids of each.
type queue struct {
	x        *Exceptions
	rdb      *redis.Client
	res      *fakeResender
	mismatch string // order with a wrong-amount notification
	dead     string // order whose webhook died
	refund   string // refund stuck pending
	usdt     string // order whose USDT review cannot reach its backend
	recon    string // a reconciliation finding's id
	endpoint string // a webhook endpoint the dispatcher disabled
	refused  string // a refused notification naming no order (its digest)
}

func newQueue(t *testing.T) *queue {
	t.Helper()
	ctx := context.Background()
	rdb := testenv.Redis(t)
	store := command.NewStore(rdb, time.Hour, time.Hour)
	q := &queue{rdb: rdb, res: &fakeResender{real: dispatcher.NewWebhooks(rdb)}}
	now := time.Now()
	order := func(method schema.Method) *schema.Order {
		o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: "1001", Sandbox: true, Amount: 100_00,
			Currency: "USD", Method: method, Status: schema.StatusReady, CreatedAt: now, UpdatedAt: now, Version: 1}
		if method == schema.MethodUSDTDirect {
			o.PayableAmount, o.NextAction, o.Network = "100.000123", schema.NextUSDTDirectPay, "TRC20"
		}
		if _, _, err := store.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	// A wrong amount, recorded as the notification log records it.
	m := order(schema.MethodWalletA)
	q.mismatch = m.ID
	shard, _ := schema.ParseOrderID(m.ID)
	rec, _ := json.Marshal(schema.NotificationRecord{At: now.Add(-time.Minute), Provider: "wallet_a", OrderID: m.ID, Outcome: "paid",
		Paid: "90.00 USD", Verdict: schema.VerdictAmountMismatch, Detail: "charged 100.00 USD, provider reports 90.00 USD"})
	rdb.LPush(ctx, schema.NotificationsKey(shard, m.ID), rec)
	rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(now.Add(-time.Minute).UnixMilli()), Member: m.ID})
	// A notification naming no order of ours.
	refused, _ := json.Marshal(schema.NotificationRecord{At: now, Provider: "wallet_b", OrderID: "P-nope", Verdict: schema.VerdictUnknownOrder})
	rdb.LPush(ctx, schema.RefusedNotificationsKey, refused)
	q.refused = digest(string(refused))
	// A dead webhook, as the dispatcher leaves it.
	d := order(schema.MethodWalletA)
	q.dead = d.ID
	dshard, _ := schema.ParseOrderID(d.ID)
	rdb.HSet(ctx, schema.WebhookKey(dshard, d.ID), "st", "dead", "appid", "1001", "url", "http://127.0.0.1:1/hook", "host", "127.0.0.1:1")
	rdb.ZAdd(ctx, schema.WebhookDeadKey(dshard), redis.Z{Score: float64(now.UnixMilli()), Member: d.ID})
	// A refund pending for an hour, and one asked for just now (no exception yet).
	r := order(schema.MethodWalletA)
	rshard, _ := schema.ParseOrderID(r.ID)
	q.refund = "R-stuck"
	rdb.ZAdd(ctx, schema.RefundIndexKey(rshard), redis.Z{Score: float64(now.Add(-time.Hour).UnixMilli()), Member: schema.RefundIndexMember(r.ID, q.refund)},
		redis.Z{Score: float64(now.UnixMilli()), Member: schema.RefundIndexMember(r.ID, "R-fresh")})
	// A USDT review whose chain backend is down.
	u := order(schema.MethodUSDTDirect)
	q.usdt = u.ID
	hash := strings.Repeat("d4", 32)
	if ok, err := store.SubmitUSDTTx(ctx, u.ID, "TRC20", hash, now, now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("submit: %v %v", ok, err)
	}
	review := command.NewUSDTReview(store)
	if err := review.Progress(ctx, u.ID, hash, schema.USDTProgress{Step: schema.ReviewRetrying, NextCheck: now.Add(time.Minute), Until: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// A payment a provider's statement did not list.
	rc := order(schema.MethodWalletA)
	f := recon.Finding{Kind: recon.MissingAtProvider, Payment: &recon.Payment{AppID: "1001", OrderID: rc.ID, ProviderRef: "WA1", Amount: 1000, Currency: "CNY"}}
	if err := recon.NewRedisQueue(rdb).Raise(ctx, "wallet_a.default", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), []recon.Finding{f}); err != nil {
		t.Fatal(err)
	}
	q.recon = "missing_at_provider:wallet_a.default:2026-11-27:WA1:" + rc.ID
	// A webhook endpoint the dispatcher disabled, as it raises it.
	q.endpoint = "ep_0123456789abcdef"
	hs := schema.HomeShard("1001")
	rdb.HSet(ctx, schema.EndpointExceptionKey(hs), "1001 "+q.endpoint,
		`{"appid":"1001","endpoint":"ep_0123456789abcdef","url":"https://shop.example/hooks"}`)
	rdb.ZAdd(ctx, schema.EndpointExceptionsKey(hs), redis.Z{Score: float64(now.UnixMilli()), Member: "1001 " + q.endpoint})
	log := audit.NewLog(rdb)
	x, err := NewExceptions(ExceptionsConfig{}, rdb, store, command.NewUSDTBacklog(store), q.res, log)
	if err != nil {
		t.Fatal(err)
	}
	q.x = x
	return q
}

// TestExceptionsQueue: every kind of exception is found where the gateway
// keeps it, with its order and merchant and the actions it offers; a kind
// filter shows only that kind; an unknown kind is refused.
func TestExceptionsQueue(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	all, err := q.x.List(ctx, opAuditor, ExceptionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]Exception{}
	for _, e := range all {
		byKind[e.Kind] = e
	}
	tests := []struct {
		kind, id, order string
		actions         string
	}{
		{schema.ExceptionMismatch, q.mismatch, q.mismatch, "handle,record_refund"},
		{schema.ExceptionRefused, q.refused, "P-nope", "handle"},
		{schema.ExceptionWebhookDead, q.dead, q.dead, "resend,handle"},
		{schema.ExceptionRefundStuck, q.refund, "", "handle"},
		{schema.ExceptionUSDTBackend, q.usdt, q.usdt, "handle"},
		{schema.ExceptionRecon, q.recon, "", "handle"},
		{schema.ExceptionEndpointDisabled, q.endpoint, "", "handle"},
	}
	if len(all) != len(tests) {
		t.Fatalf("%d exceptions, want %d: %+v", len(all), len(tests), all)
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			e, ok := byKind[tt.kind]
			if !ok || e.ID != tt.id || (tt.order != "" && e.OrderID != tt.order) || strings.Join(e.Actions, ",") != tt.actions {
				t.Fatalf("%+v, want id %s order %s actions %s", e, tt.id, tt.order, tt.actions)
			}
			if e.OrderID != "P-nope" && e.AppID != "1001" {
				t.Fatalf("merchant %q", e.AppID)
			}
			one, err := q.x.List(ctx, opAuditor, ExceptionFilter{Kind: tt.kind})
			if err != nil || len(one) != 1 || one[0].ID != tt.id {
				t.Fatalf("filtered by %s: %+v %v", tt.kind, one, err)
			}
		})
	}
	if r := byKind[schema.ExceptionRecon]; !strings.Contains(r.Detail, "not on the statement") || r.Verdict != string(recon.MissingAtProvider) || r.Provider != "wallet_a.default" {
		t.Fatalf("reconciliation finding %+v", r)
	}
	if m := byKind[schema.ExceptionMismatch]; !strings.Contains(m.Detail, "90.00 USD") || m.Verdict != schema.VerdictAmountMismatch {
		t.Fatalf("mismatch detail %+v", m)
	}
	if _, err := q.x.List(ctx, opAdmin, ExceptionFilter{Kind: "nonsense"}); !isKind(err, platform.KindInvalidParameter) {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := q.x.List(ctx, mOwner, ExceptionFilter{}); !isKind(err, platform.KindForbidden) {
		t.Fatalf("a merchant user read the queue: %v", err)
	}
}

// TestExceptionHandle: support marks an exception handled with a note; it
// leaves the queue (shown again with Handled), the mark and its audit entry
// are written together on the order's shard; a newer occurrence shows it
// again. An auditor is refused (403) and nothing is written; a note is
// required; an id the queue does not show is not found.
func TestExceptionHandle(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(q.mismatch)
	if _, err := q.x.Handle(ctx, opAuditor, schema.ExceptionMismatch, q.mismatch, "looked"); !isKind(err, platform.KindForbidden) {
		t.Fatalf("auditor: %v", err)
	}
	if _, err := q.x.Handle(ctx, opSupport, schema.ExceptionMismatch, q.mismatch, "  "); !isKind(err, platform.KindInvalidParameter) {
		t.Fatalf("no note: %v", err)
	}
	if _, err := q.x.Handle(ctx, opSupport, schema.ExceptionMismatch, schema.NewOrderID(time.Now(), shard), "x"); !isKind(err, platform.KindNotFound) {
		t.Fatalf("made-up id: %v", err)
	}
	if n := q.rdb.XLen(ctx, schema.AuditKey(shard.Tag())).Val(); n != 0 {
		t.Fatalf("refusals wrote %d audit entries", n)
	}
	if _, err := q.x.Handle(ctx, opSupport, schema.ExceptionMismatch, q.mismatch, "payer refunded by the provider, ticket 4411"); err != nil {
		t.Fatal(err)
	}
	open, _ := q.x.List(ctx, opSupport, ExceptionFilter{Kind: schema.ExceptionMismatch})
	withHandled, _ := q.x.List(ctx, opSupport, ExceptionFilter{Kind: schema.ExceptionMismatch, Handled: true})
	if len(open) != 0 || len(withHandled) != 1 || withHandled[0].Handled == nil || withHandled[0].Handled.By != "op:sam@ops.test" {
		t.Fatalf("after handling: open %+v, all %+v", open, withHandled)
	}
	rows, err := audit.Read(ctx, q.rdb, schema.AuditKey(shard.Tag()), 10)
	if err != nil || len(rows) != 1 || rows[0].Action != "exception.handle" || rows[0].Target != "order:"+q.mismatch ||
		rows[0].AppID != "1001" || rows[0].Details["note"] != "payer refunded by the provider, ticket 4411" || rows[0].Role != "support" {
		t.Fatalf("audit: %+v %v", rows, err)
	}
	// It happens again: the order is back in the queue.
	q.rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(time.Now().Add(time.Second).UnixMilli()), Member: q.mismatch})
	rec, _ := json.Marshal(schema.NotificationRecord{At: time.Now().Add(time.Second), Provider: "wallet_a", OrderID: q.mismatch,
		Outcome: "partial", Verdict: schema.VerdictPartial})
	q.rdb.LPush(ctx, schema.NotificationsKey(shard, q.mismatch), rec)
	if again, _ := q.x.List(ctx, opSupport, ExceptionFilter{Kind: schema.ExceptionMismatch}); len(again) != 1 || again[0].Verdict != schema.VerdictPartial {
		t.Fatalf("a newer mismatch: %+v", again)
	}
}

// TestExceptionResend: support resends a dead webhook from the queue (the
// dispatcher is asked, the audit log says so); an auditor is refused and
// nothing is asked; only a dead webhook the queue shows can be resent.
func TestExceptionResend(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	if err := q.x.Resend(ctx, opAuditor, q.dead); !isKind(err, platform.KindForbidden) || len(q.res.got) != 0 {
		t.Fatalf("auditor: %v, asked %v", err, q.res.got)
	}
	if err := q.x.Resend(ctx, opSupport, q.mismatch); !isKind(err, platform.KindNotFound) || len(q.res.got) != 0 {
		t.Fatalf("not a dead webhook: %v, asked %v", err, q.res.got)
	}
	if err := q.x.Resend(ctx, opSupport, q.dead); err != nil || len(q.res.got) != 1 || q.res.got[0] != q.dead {
		t.Fatalf("support: %v, asked %v", err, q.res.got)
	}
	// The entry is in the resend's own script, on the order's shard.
	shard, _ := schema.ParseOrderID(q.dead)
	rows := auditRowsAt(t, q.rdb, schema.AuditKey(shard.Tag()))
	if len(rows) != 1 || rows[0].Action != "webhook.resend" || rows[0].Target != "order:"+q.dead || rows[0].ActorEmail != opSupport.Email ||
		rows[0].AppID != "1001" || rows[0].Details["via"] != "manual" {
		t.Fatalf("audit: %+v", rows)
	}
}
