package command

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestReviewFindingOnTheEvent: a review's outcome event says what it found
// (schema.EvUSDT), the merchant's usdt.* events: a rejection's underpaid or
// overpaid as the reviewer judged it, late for an approval of an order that
// had ended unpaid; nothing for an approval in time or an escalation.
func TestReviewFindingOnTheEvent(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		ended   bool // the order is cancelled before the outcome
		outcome func(id, hash string) (*schema.Order, error)
		want    string
	}{
		{"short", false, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Reject(ctx, id, hash, usdt.Decision{By: "r", Reason: "wrong_amount", Finding: schema.USDTUnderpaid})
		}, schema.USDTUnderpaid},
		{"above", false, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Reject(ctx, id, hash, usdt.Decision{By: "r", Reason: "wrong_amount", Finding: schema.USDTOverpaid})
		}, schema.USDTOverpaid},
		{"another rejection", false, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Reject(ctx, id, hash, usdt.Decision{By: "r", Reason: "wrong_address"})
		}, ""},
		{"approved in time", false, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Approve(ctx, id, hash, usdt.Decision{By: "r"})
		}, ""},
		{"approved after the order ended", true, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Approve(ctx, id, hash, usdt.Decision{By: "admin:1"})
		}, schema.USDTLate},
		{"escalated", false, func(id, hash string) (*schema.Order, error) {
			return h.uc.Review.Escalate(ctx, id, hash, usdt.Decision{By: "r", Reason: "backend_down"})
		}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := hash64(string(rune('a'+i)) + "9")
			id := h.underReview(hash)
			if tt.ended {
				if _, err := h.store.Transition(ctx, id, schema.StatusCancelled, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tt.outcome(id, hash); err != nil {
				t.Fatal(err)
			}
			if ev := h.lastEvent(id); ev.USDT != tt.want {
				t.Fatalf("the outcome's event (%s) found %q, want %q", ev.Type, ev.USDT, tt.want)
			}
		})
	}
}
