package command

import (
	"context"
	"strings"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestMoveUSDT: a hash rejected on the wrong order goes under review on
// the order whose unique payable amount the transfer carries, only if that
// order awaits a transfer on the same network (a security review
// finding).
func TestMoveUSDT(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		victim func(h *harness, id string) // what the victim's order is doing
		to     func(victim *schema.Order, attacker string) string
		kind   platform.Kind
	}{
		{"awaiting a transfer: moved", func(*harness, string) {}, func(v *schema.Order, _ string) string { return v.PayableAmount }, ""},
		{"holding its own hash", func(h *harness, id string) {
			if _, err := h.uc.USDT.SubmitTxHash(ctx, id, hash64("7f")); err != nil {
				h.t.Fatal(err)
			}
		}, func(v *schema.Order, _ string) string { return v.PayableAmount }, platform.KindConflict},
		{"an amount no order holds", func(*harness, string) {}, func(*schema.Order, string) string { return "999.999999" }, platform.KindNotFound},
		{"the rejected order's own amount", func(*harness, string) {}, func(_ *schema.Order, a string) string { return a }, platform.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			victim := h.usdtOrder(true)
			h.mustChoose(victim, "TRC20")
			tt.victim(h, victim)
			hash := hash64("e1")
			attacker := h.underReview(hash)
			if _, err := h.uc.Review.Reject(ctx, attacker, hash, usdt.Decision{By: "reviewer-1", Reason: "wrong_amount"}); err != nil {
				t.Fatal(err)
			}
			v, _ := h.store.Get(ctx, victim)
			a, _ := h.store.Get(ctx, attacker)
			moved, err := h.uc.Review.Move(ctx, attacker, hash, tt.to(v, a.PayableAmount), usdt.Decision{By: "reviewer-1"})
			if kindOf(err) != tt.kind || (err != nil) != (tt.kind != "") {
				t.Fatalf("err = %v, want kind %q", err, tt.kind)
			}
			if err != nil {
				if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash)).Val(); holder != "" {
					t.Fatalf("a refused move left the hash with %q", holder)
				}
				return
			}
			if moved.ID != victim || moved.TxHash != hash || moved.NextAction != schema.NextUSDTReview {
				t.Fatalf("moved: %+v", moved)
			}
			k := h.reviewKeys(victim)
			if last := k.history[len(k.history)-1]; !k.queued || last.Outcome != usdt.OutcomeAttached || !strings.Contains(last.Note, attacker) {
				t.Fatalf("victim's review: %+v", k)
			}
		})
	}
}
