package command

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// underReview is a sandbox usdt_direct order on TRC20 whose payer
// submitted hash.
func (h *harness) underReview(hash string) string {
	h.t.Helper()
	id := h.usdtOrder(true)
	h.mustChoose(id, "TRC20")
	if _, err := h.uc.USDT.SubmitTxHash(context.Background(), id, hash); err != nil {
		h.t.Fatalf("submit %s: %v", hash, err)
	}
	return id
}

// reviewKeys is where order id stands in its shard's review indexes.
type reviewKeys struct {
	queued, onDesk, expiring bool
	history                  []usdt.Decision
}

func (h *harness) reviewKeys(id string) reviewKeys {
	h.t.Helper()
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(id)
	in := func(key string) bool {
		err := h.rdb.ZScore(ctx, key, id).Err()
		if err != nil && err != redis.Nil {
			h.t.Fatal(err)
		}
		return err == nil
	}
	hist, err := h.uc.Backlog.History(ctx, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return reviewKeys{queued: in(schema.USDTReviewsKey(shard)), onDesk: in(schema.USDTDeskKey(shard)),
		expiring: h.expiring(id), history: hist}
}

func mustShard(id string) schema.Shard {
	s, _ := schema.ParseOrderID(id)
	return s
}

func decision(by string) usdt.Decision {
	return usdt.Decision{By: by, Reason: "wrong_amount", Note: "n"}
}

func TestApproveUSDT(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("f6")
	id := h.underReview(hash)
	before, _ := h.store.Get(ctx, id)
	o, err := h.uc.Review.Approve(ctx, id, hash, usdt.Decision{By: "reviewer-7", Evidence: "block 9"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != schema.StatusPaid || o.Review != usdt.OutcomeApproved || o.NextAction != "" || o.CompletedAt.IsZero() ||
		o.Version != before.Version+1 || o.TxHash != hash {
		t.Fatalf("approved: %+v", o)
	}
	if ev := h.lastEvent(id); ev.Type != schema.EventFor(schema.StatusPaid) || ev.Order.ID != id || ev.Order.Status != schema.StatusPaid {
		t.Fatalf("last event %s %+v", ev.Type, ev.Order)
	}
	k := h.reviewKeys(id)
	if k.queued || k.onDesk || k.expiring || len(k.history) != 1 {
		t.Fatalf("indexes after approve: %+v", k)
	}
	if d := k.history[0]; d.Outcome != usdt.OutcomeApproved || d.By != "reviewer-7" || d.Hash != hash || d.Evidence != "block 9" || d.At.IsZero() {
		t.Fatalf("history %+v", d)
	}
	shard, _ := schema.ParseOrderID(id)
	if ttl := h.rdb.TTL(ctx, schema.OrderHistoryKey(shard, id)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("history kept for %v, want the order's retention", ttl)
	}
	again, err := h.uc.Review.Approve(ctx, id, hash, usdt.Decision{By: "reviewer-8"})
	if err != nil {
		t.Fatalf("approving again: %v", err)
	}
	if again.Version != o.Version || len(h.reviewKeys(id).history) != 1 {
		t.Fatalf("approving again wrote: v%d", again.Version)
	}
}

// TestReviewConflicts: an outcome for an order not under review for that
// hash, or paid, or for a hash another order holds, changes nothing.
func TestReviewConflicts(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	paid := h.underReview(hash64("01"))
	if _, err := h.uc.Review.Approve(ctx, paid, hash64("01"), decision("r")); err != nil {
		t.Fatal(err)
	}
	queued := h.underReview(hash64("02"))
	fresh := h.usdtOrder(true)
	h.mustChoose(fresh, "TRC20")
	type outcome func(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error)
	approve, reject, escalate := outcome(h.uc.Review.Approve), outcome(h.uc.Review.Reject), outcome(h.uc.Review.Escalate)
	tests := []struct {
		name string
		do   outcome
		id   string
		hash string
		kind platform.Kind
		msg  string
	}{
		{"reject a paid order", reject, paid, hash64("01"), platform.KindConflict, "paid already"},
		{"escalate a paid order", escalate, paid, hash64("01"), platform.KindConflict, "paid already"},
		{"approve another hash", approve, queued, hash64("03"), platform.KindConflict, "not under review"},
		{"approve a hash another order holds", approve, queued, hash64("01"), platform.KindConflict, "hash already used"},
		{"reject a hash another order holds", reject, fresh, hash64("02"), platform.KindConflict, "not under review"},
		{"approve an order with no hash", approve, fresh, hash64("04"), platform.KindConflict, "not under review"},
		{"approve with a malformed hash", approve, queued, "0x" + hash64("02"), platform.KindInvalidParameter, ""},
		{"an order that is not usdt_direct", approve, h.createOK(h.baseParams())["paymentId"].(string), hash64("02"), platform.KindNotFound, ""},
		{"a decision of no one", approve, queued, hash64("02"), platform.KindInvalidParameter, "who"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.store.Get(ctx, tt.id)
			d := decision("r")
			if tt.msg == "who" {
				d.By = ""
			}
			_, err := tt.do(ctx, tt.id, tt.hash, d)
			if kindOf(err) != tt.kind || (tt.msg != "" && tt.msg != "who" && !strings.Contains(msgOf(err), tt.msg)) {
				t.Fatalf("err = %v, want %s %q", err, tt.kind, tt.msg)
			}
			if after, _ := h.store.Get(ctx, tt.id); *after != *before {
				t.Fatalf("order changed: %+v", after)
			}
		})
	}
	if k := h.reviewKeys(queued); !k.queued || len(k.history) != 0 {
		t.Fatalf("refused outcomes touched the queue or history: %+v", k)
	}
}

func TestRejectUSDT(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("a7")
	id := h.underReview(hash)
	o, err := h.uc.Review.Reject(ctx, id, hash, usdt.Decision{By: "reviewer-2", Reason: "wrong_amount", Evidence: "12.000001"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != schema.StatusReady || o.NextAction != schema.NextUSDTDirectPay || o.Review != usdt.OutcomeRejected ||
		o.ReviewReason != "wrong_amount" || o.TxHash != "" {
		t.Fatalf("rejected: %+v", o)
	}
	if ev := h.lastEvent(id); ev.Type != schema.EventChanged || ev.Order.ReviewReason != "wrong_amount" {
		t.Fatalf("last event %s %+v", ev.Type, ev.Order)
	}
	k := h.reviewKeys(id)
	if k.queued || !k.onDesk || !k.expiring || len(k.history) != 1 || k.history[0].Outcome != usdt.OutcomeRejected || k.history[0].Hash != hash {
		t.Fatalf("indexes after reject: %+v", k)
	}
	if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash)).Val(); holder != "" {
		t.Fatalf("a rejected hash stays reserved for %q", holder)
	}
	again, err := h.uc.Review.Reject(ctx, id, hash, decision("reviewer-3"))
	if err != nil {
		t.Fatalf("rejecting again: %v", err)
	}
	if again.Version != o.Version || len(h.reviewKeys(id).history) != 1 {
		t.Fatalf("rejecting again wrote: v%d", again.Version)
	}
	if _, err := h.uc.Review.Reject(ctx, id, hash, usdt.Decision{By: "x"}); kindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("a rejection without a reason: %v", err)
	}
	// An order an administrator was to decide had left the expiry index;
	// rejected, it is payable again and expires again.
	waited := h.underReview(hash64("a8"))
	if _, err := h.uc.Review.Escalate(ctx, waited, hash64("a8"), decision("r")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.uc.Review.Reject(ctx, waited, hash64("a8"), decision("admin:ops")); err != nil {
		t.Fatal(err)
	}
	if !h.reviewKeys(waited).expiring {
		t.Fatal("a rejected order that had waited never expires")
	}
	h.rdb.Del(ctx, schema.OrderKey(mustShard(waited), waited))
	failed, err := h.uc.Backlog.Reviews(ctx, BacklogFailed)
	if err != nil || len(failed) != 1 || failed[0].ID != id {
		t.Fatalf("failed backlog: %v %v", failed, err)
	}
}

// TestEscalateUSDT: an order waiting for an administrator leaves the
// review queue and the expiry index, so the sweep does not cancel it
// however long it waits; the administrator's approval pays it.
func TestEscalateUSDT(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("b8")
	id := h.underReview(hash)
	o, err := h.uc.Review.Escalate(ctx, id, hash, usdt.Decision{By: "reviewer-4", Reason: "backend_down"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Review != usdt.OutcomeWaiting || o.ReviewReason != "backend_down" || o.NextAction != schema.NextUSDTReview || o.TxHash != hash {
		t.Fatalf("escalated: %+v", o)
	}
	if ev := h.lastEvent(id); ev.Type != schema.EventChanged || ev.Order.Review != usdt.OutcomeWaiting {
		t.Fatalf("last event %s %+v", ev.Type, ev.Order)
	}
	if k := h.reviewKeys(id); k.queued || !k.onDesk || k.expiring || len(k.history) != 1 {
		t.Fatalf("indexes after escalate: %+v", k)
	}
	settle := h.newSettle()
	settle.now = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	e := settle.NewExpirer(h.rdb, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, s := range schema.AllShards() {
		if _, err := e.Sweep(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if o, _ := h.store.Get(ctx, id); o.Status != schema.StatusReady {
		t.Fatalf("a waiting order was swept: %s", o.Status)
	}
	waiting, err := h.uc.Backlog.Reviews(ctx, BacklogWaiting)
	if err != nil || len(waiting) != 1 || waiting[0].ID != id {
		t.Fatalf("waiting backlog: %v %v", waiting, err)
	}
	if o, err := h.uc.Review.Approve(ctx, id, hash, usdt.Decision{By: "admin:ops", Note: "seen on chain"}); err != nil || o.Status != schema.StatusPaid {
		t.Fatalf("approve a waiting order: %v", err)
	}
	if k := h.reviewKeys(id); k.onDesk || len(k.history) != 2 {
		t.Fatalf("after the administrator: %+v", k)
	}
}
