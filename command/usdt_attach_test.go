package command

import (
	"context"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestAttachUSDT: an administrator puts a transfer under review on the
// order it pays: a free hash, a hash a rejection released, or in place of
// the order's own hash (which is given back); never a hash another order
// holds, never on a paid order, never without saying why.
func TestAttachUSDT(t *testing.T) {
	ctx := context.Background()
	admin := func(note string) usdt.Decision { return usdt.Decision{By: "admin:alice", Note: note} }
	tests := []struct {
		name    string
		setup   func(h *harness) (id, hash string)
		note    string
		kind    platform.Kind
		release string // a hash the attach must give back
	}{
		{"free hash on an order awaiting a transfer", func(h *harness) (string, string) {
			id := h.usdtOrder(true)
			h.mustChoose(id, "TRC20")
			return id, hash64("a1")
		}, "payer sent it by mail", "", ""},
		{"hash a wrong order's rejection released", func(h *harness) (string, string) {
			wrong := h.underReview(hash64("b2"))
			if _, err := h.uc.Review.Reject(ctx, wrong, hash64("b2"), decision("r")); err != nil {
				h.t.Fatal(err)
			}
			id := h.usdtOrder(true)
			h.mustChoose(id, "TRC20")
			return id, hash64("b2")
		}, "moved from the attacker's order", "", ""},
		{"replaces the order's own hash under review", func(h *harness) (string, string) {
			return h.underReview(hash64("c3")), hash64("d4")
		}, "the payer pasted the wrong hash", "", hash64("c3")},
		{"hash another order holds", func(h *harness) (string, string) {
			h.underReview(hash64("e5"))
			id := h.usdtOrder(true)
			h.mustChoose(id, "TRC20")
			return id, hash64("e5")
		}, "x", platform.KindConflict, ""},
		{"paid order", func(h *harness) (string, string) {
			id := h.underReview(hash64("f6"))
			if _, err := h.uc.Review.Approve(ctx, id, hash64("f6"), decision("r")); err != nil {
				h.t.Fatal(err)
			}
			return id, hash64("a7")
		}, "x", platform.KindConflict, ""},
		{"no note", func(h *harness) (string, string) {
			id := h.usdtOrder(true)
			h.mustChoose(id, "TRC20")
			return id, hash64("b8")
		}, "", platform.KindInvalidParameter, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			id, hash := tt.setup(h)
			o, err := h.uc.Review.Attach(ctx, id, hash, admin(tt.note))
			if kindOf(err) != tt.kind || (err != nil) != (tt.kind != "") {
				t.Fatalf("err = %v, want kind %q", err, tt.kind)
			}
			if err != nil {
				return
			}
			if o.TxHash != hash || o.NextAction != schema.NextUSDTReview || o.Review != "" {
				t.Fatalf("attached: %+v", o)
			}
			if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash)).Val(); holder != id {
				t.Fatalf("hash held by %q", holder)
			}
			if tt.release != "" && h.rdb.Exists(ctx, schema.USDTTxKey("TRC20", tt.release)).Val() != 0 {
				t.Fatal("the replaced hash stayed reserved")
			}
			k := h.reviewKeys(id)
			last := k.history[len(k.history)-1]
			if !k.queued || last.Outcome != usdt.OutcomeAttached || last.By != "admin:alice" || last.Note != tt.note || last.Hash != hash {
				t.Fatalf("review keys %+v", k)
			}
			if o, err := h.uc.Review.Approve(ctx, id, hash, decision("reviewer-1")); err != nil || o.Status != schema.StatusPaid {
				t.Fatalf("the review could not pay the attached transfer: %+v %v", o, err)
			}
		})
	}
}
