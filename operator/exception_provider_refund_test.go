package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// fakeRefunder is a provider family that refunds once per refund id, as
// the providers do; err, when set, is its answer instead; entered, when
// set, is signalled and gate awaited before it answers the first call.
type fakeRefunder struct {
	provider.Adapter
	mu      sync.Mutex
	calls   []provider.RefundRequest
	err     error
	entered chan struct{}
	gate    chan struct{}
}

func (f *fakeRefunder) Refund(_ context.Context, r provider.RefundRequest) (provider.RefundResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, r)
	err, first := f.err, len(f.calls) == 1
	f.mu.Unlock()
	if f.entered != nil && first {
		f.entered <- struct{}{}
		<-f.gate
	}
	if err != nil {
		return provider.RefundResult{}, err
	}
	return provider.RefundResult{Ref: "PR-" + r.RefundID}, nil
}

func (f *fakeRefunder) n() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.calls) }

// noRefunds is a family whose protocol has no refund call.
type noRefunds struct{ provider.Adapter }

type fakeAdapters map[schema.Method]provider.Adapter

func (a fakeAdapters) For(m schema.Method, _ bool) (provider.Adapter, bool) {
	p, ok := a[m]
	return p, ok
}

// ForChannel: each method has the default channel only.
func (a fakeAdapters) ForChannel(m schema.Method, sandbox bool, id string) (provider.Adapter, bool) {
	if id != "" && id != "default" {
		return nil, false
	}
	return a.For(m, sandbox)
}

// addMismatch keeps an order of method asking 100.00 USD and a verified
// notification of a payment it did not accept, with the evidence given.
func addMismatch(t *testing.T, q *queue, method schema.Method, verdict, paid, ref string) string {
	t.Helper()
	return addMismatchOf(t, q, schema.StatusCancelled, method, verdict, paid, ref)
}

func addMismatchOf(t *testing.T, q *queue, status schema.Status, method schema.Method, verdict, paid, ref string) string {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: "1001", Sandbox: true, Amount: 100_00,
		Currency: "USD", Method: method, Status: status, CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := command.NewStore(q.rdb, time.Hour, time.Hour).Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	shard, _ := schema.ParseOrderID(o.ID)
	rec, _ := json.Marshal(schema.NotificationRecord{At: now.Add(-time.Minute), Provider: string(method), OrderID: o.ID,
		Outcome: "paid", Paid: paid, Ref: ref, Verdict: verdict, Detail: "provider reports " + paid})
	q.rdb.LPush(ctx, schema.NotificationsKey(shard, o.ID), rec)
	q.rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(now.Add(-time.Minute).UnixMilli()), Member: o.ID})
	return o.ID
}

func auditOf(t *testing.T, q *queue, order string) []string {
	t.Helper()
	shard, _ := schema.ParseOrderID(order)
	var out []string
	for _, r := range auditRowsAt(t, q.rdb, schema.AuditKey(shard.Tag())) {
		if r.Target == "order:"+order {
			out = append(out, r.Action)
		}
	}
	return out
}

// TestExceptionRefundRefusals: every refusal sends nothing to the provider,
// writes no audit entry and leaves the exception open, and says why. A
// paid order's mismatch is refused: the families refund by our order id,
// which would take back the payment we accepted.
func TestExceptionRefundRefusals(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	f := &fakeRefunder{}
	q.x.WithRefunds(fakeAdapters{schema.MethodWalletA: f, schema.MethodWalletB: noRefunds{}})
	good := addMismatch(t, q, schema.MethodWalletA, schema.VerdictAmountMismatch, "90.00 USD", "T-1")
	noRefund := addMismatch(t, q, schema.MethodWalletB, schema.VerdictAmountMismatch, "90.00 USD", "T-2")
	paid := addMismatchOf(t, q, schema.StatusPaid, schema.MethodWalletA, schema.VerdictRefMismatch, "100.00 USD", "T-3")
	gone := addMismatch(t, q, schema.MethodWalletA, schema.VerdictAmountMismatch, "90.00 USD", "T-4")
	goneShard, _ := schema.ParseOrderID(gone)
	q.rdb.HSet(ctx, schema.OrderKey(goneShard, gone), schema.FChannel, "gone") // a channel since removed
	for _, tc := range []struct {
		name  string
		actor access.Actor
		id    string
		kind  platform.Kind
		says  string
	}{
		{"support", opSupport, good, platform.KindForbidden, "may not"},
		{"auditor", opAuditor, good, platform.KindForbidden, "may not"},
		{"merchant owner", mOwner, good, platform.KindForbidden, "may not"},
		{"another kind", opAdmin, q.dead, platform.KindInvalidParameter, "webhook_dead"},
		{"no provider reference", opAdmin, q.mismatch, platform.KindInvalidParameter, "no provider reference"},
		{"family without refunds", opAdmin, noRefund, platform.KindRefundUnsupported, "wallet_b cannot refund"},
		{"paid order", opAdmin, paid, platform.KindConflict, "is paid"},
		{"the order's channel is no longer configured", opAdmin, gone, platform.KindRefundUnsupported, "channel sandbox.wallet_a.gone"},
		{"unknown", opAdmin, "P-nope", platform.KindNotFound, "no mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := q.x.Refund(ctx, tc.actor, tc.id)
			var pe *platform.Error
			if !isKind(err, tc.kind) || !asPlatform(err, &pe) || !strings.Contains(pe.Msg, tc.says) {
				t.Fatalf("%v, want %s saying %q", err, tc.kind, tc.says)
			}
			if f.n() != 0 {
				t.Fatalf("a refusal called the provider %d times", f.n())
			}
			if got := auditOf(t, q, tc.id); len(got) != 0 {
				t.Fatalf("a refusal wrote %v", got)
			}
		})
	}
	open, _ := q.x.List(ctx, opAdmin, ExceptionFilter{Kind: schema.ExceptionMismatch})
	offered := map[string][]string{}
	for _, e := range open {
		offered[e.ID] = e.Actions
	}
	if len(open) != 5 || !has(offered[good], ActionRefund) || has(offered[noRefund], ActionRefund) || has(offered[q.mismatch], ActionRefund) ||
		has(offered[paid], ActionRefund) || has(offered[gone], ActionRefund) ||
		!has(offered[noRefund], ActionRecordRefund) {
		t.Fatalf("open mismatches and their actions: %v", offered)
	}
}

func has(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestExceptionRefundUnreachableThenRetried: a provider that cannot be
// reached leaves the exception open with the attempt shown and audited;
// the administrator's second refund asks under the same refund id and the
// answer closes it, on the timeline and in the log; a third asks nothing.
// The amount is what the provider reported, never what the order asked.
func TestExceptionRefundUnreachableThenRetried(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	f := &fakeRefunder{err: fmt.Errorf("wallet_a: %w", provider.ErrUnavailable)}
	q.x.WithRefunds(fakeAdapters{schema.MethodWalletA: f})
	id := addMismatch(t, q, schema.MethodWalletA, schema.VerdictAmountMismatch, "90.00 USD", "T-9")

	if _, err := q.x.Refund(ctx, opAdmin, id); !isKind(err, platform.KindUnavailable) {
		t.Fatalf("unreachable: %v", err)
	}
	e := openMismatch(t, q, id)
	if e == nil || e.Attempt == nil || e.Attempt.By != "op:ann@ops.test" || e.Attempt.RefundID != RefundIDOf(*e) {
		t.Fatalf("the attempt is not shown on the open exception: %+v", e)
	}
	f.err = nil
	done, err := q.x.Refund(ctx, opAdmin, id)
	if err != nil || done.Handled == nil || done.Handled.ProviderRefund != "PR-"+RefundIDOf(*e) ||
		!strings.Contains(done.Handled.Note, "refunded 90.00 USD through wallet_a") {
		t.Fatalf("retry: %+v %v", done.Handled, err)
	}
	if again, err := q.x.Refund(ctx, opAdmin, id); err != nil || again.Handled == nil || again.Handled.ProviderRefund != done.Handled.ProviderRefund {
		t.Fatalf("a click after the refund: %+v %v", again, err)
	}
	if f.n() != 2 || f.calls[0].RefundID != f.calls[1].RefundID {
		t.Fatalf("provider calls: %+v", f.calls)
	}
	c := f.calls[1]
	if c.Amount != (provider.Money{Amount: 90_00, Currency: "USD"}) || c.Charged != c.Amount || c.Ref != "T-9" || c.OrderID != id {
		t.Fatalf("asked for %+v", c)
	}
	if openMismatch(t, q, id) != nil {
		t.Fatal("the refunded mismatch is still open")
	}
	if got := strings.Join(auditOf(t, q, id), ","); got != "exception.refund_unanswered,exception.refund" {
		t.Fatalf("audit: %s", got)
	}
	shard, _ := schema.ParseOrderID(id)
	var rec schema.NotificationRecord
	if raw, err := q.rdb.LIndex(ctx, schema.NotificationsKey(shard, id), 0).Result(); err != nil || json.Unmarshal([]byte(raw), &rec) != nil ||
		rec.Verdict != schema.VerdictRefunded || rec.Ref != done.Handled.ProviderRefund || rec.Paid != "90.00 USD" {
		t.Fatalf("timeline: %+v %v", rec, err)
	}
}

// TestExceptionRefundRefused: the provider's no is the exception's
// outcome, audited, and recording a refund made outside stays possible.
func TestExceptionRefundRefused(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	f := &fakeRefunder{err: fmt.Errorf("wallet_a: %w", provider.ErrRefused)}
	q.x.WithRefunds(fakeAdapters{schema.MethodWalletA: f})
	id := addMismatch(t, q, schema.MethodWalletA, schema.VerdictCurrencyMismatch, "650.00 CNY", "T-7")
	e, err := q.x.Refund(ctx, opAdmin, id)
	if err != nil || e.Handled == nil || e.Handled.ProviderRefund != "" || !strings.Contains(e.Handled.Note, "refused the refund of 650.00 CNY") {
		t.Fatalf("refused: %+v %v", e.Handled, err)
	}
	if _, err := q.x.RecordRefund(ctx, opAdmin, id, "650.00", "CNY", "dashboard refund RF-1"); err != nil {
		t.Fatalf("record after a refusal: %v", err)
	}
	if got := strings.Join(auditOf(t, q, id), ","); got != "exception.refund_refused,exception.refund_recorded" || f.n() != 1 {
		t.Fatalf("audit %s, calls %d", got, f.n())
	}
}

// TestExceptionRefundConcurrent: while one refund waits on the provider a
// second of the same exception is refused at once, without a call; after
// the first ends, another click answers its outcome, without a call.
func TestExceptionRefundConcurrent(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	f := &fakeRefunder{entered: make(chan struct{}, 1), gate: make(chan struct{})}
	q.x.WithRefunds(fakeAdapters{schema.MethodWalletA: f})
	id := addMismatch(t, q, schema.MethodWalletA, schema.VerdictPartial, "40.00 USD", "T-5")
	first := make(chan error, 1)
	go func() { _, err := q.x.Refund(ctx, opAdmin, id); first <- err }()
	<-f.entered
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = q.x.Refund(ctx, opAdmin, id) }()
	}
	wg.Wait()
	close(f.gate)
	if err := <-first; err != nil {
		t.Fatalf("first: %v", err)
	}
	for _, err := range errs {
		if !isKind(err, platform.KindConflict) {
			t.Fatalf("second while the first waits: %v", err)
		}
	}
	if e, err := q.x.Refund(ctx, opAdmin, id); err != nil || e.Handled == nil || f.n() != 1 {
		t.Fatalf("after: %+v %v, %d calls", e, err, f.n())
	}
}

func openMismatch(t *testing.T, q *queue, id string) *Exception {
	t.Helper()
	open, err := q.x.List(context.Background(), opAdmin, ExceptionFilter{Kind: schema.ExceptionMismatch})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range open {
		if e.ID == id {
			return &e
		}
	}
	return nil
}

func asPlatform(err error, pe **platform.Error) bool { return errors.As(err, pe) }

func auditRowsAt(t *testing.T, rdb redisClient, key string) []audit.Row {
	t.Helper()
	rows, err := audit.Read(context.Background(), rdb, key, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestExceptionRefundKeepsTheProvidersText: what the provider answers (an
// error cut mid-character, bytes that are not UTF-8) is clipped into the
// entry, never a reason to lose it once the provider has acted; a
// mismatch whose own evidence the log could not keep (a reference over a
// detail's bound; JSON already made it UTF-8) is refused before the
// provider is asked.
func TestExceptionRefundKeepsTheProvidersText(t *testing.T) {
	bad := "x" + strings.Repeat("é", 200) + "\xff"
	for _, tc := range []struct {
		name  string
		ref   string
		err   error
		calls int
		want  string // the entries of the order, "" none
	}{
		{"refused, its error cut mid-character", "T-1", fmt.Errorf("%s: %w", bad, provider.ErrRefused), 1, "exception.refund_refused"},
		{"unreachable, its error not UTF-8", "T-2", fmt.Errorf("%s: %w", bad, provider.ErrUnavailable), 1, "exception.refund_unanswered"},
		{"evidence longer than the log keeps", strings.Repeat("R", 1100), nil, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue(t)
			f := &fakeRefunder{err: tc.err}
			q.x.WithRefunds(fakeAdapters{schema.MethodWalletA: f})
			id := addMismatch(t, q, schema.MethodWalletA, schema.VerdictAmountMismatch, "90.00 USD", tc.ref)
			_, err := q.x.Refund(context.Background(), opAdmin, id)
			if tc.want == "" && !isKind(err, platform.KindInvalidParameter) {
				t.Fatalf("%v, want a KindInvalidParameter refusal", err)
			}
			if f.n() != tc.calls {
				t.Fatalf("the provider was asked %d times, want %d", f.n(), tc.calls)
			}
			if got := strings.Join(auditOf(t, q, id), ","); got != tc.want {
				t.Fatalf("entries %q, want %q (err %v)", got, tc.want, err)
			}
		})
	}
}
