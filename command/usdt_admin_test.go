package command

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestAdminDecisions: an administrator's approval needs a note and a
// rejection a reason; each decides the hash the order holds, and an order
// holding none, or paid, takes no decision and is left as it was.
func TestAdminDecisions(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	paid := h.underReview(hash64("a1"))
	if _, err := h.uc.Review.Approve(ctx, paid, hash64("a1"), decision("r")); err != nil {
		t.Fatal(err)
	}
	fresh := h.usdtOrder(true)
	h.mustChoose(fresh, "TRC20")
	approve, reject := h.uc.Review.AdminApprove, h.uc.Review.AdminReject
	note := usdt.Decision{By: "admin:alice", Note: "seen on the explorer"}
	reason := usdt.Decision{By: "admin:alice", Reason: "amount short"}
	tests := []struct {
		name   string
		decide func(context.Context, string, usdt.Decision) (*schema.Order, error)
		id     string
		d      usdt.Decision
		kind   platform.Kind
		msg    string
		want   schema.Status
	}{
		{"approve without a note", approve, "", usdt.Decision{By: "admin:alice"}, platform.KindInvalidParameter, "note", 0},
		{"reject without a reason", reject, "", usdt.Decision{By: "admin:alice", Note: "x"}, platform.KindInvalidParameter, "reason", 0},
		{"approve an order without a hash", approve, fresh, note, platform.KindConflict, "no transaction hash", 0},
		{"reject an order without a hash", reject, fresh, reason, platform.KindConflict, "no transaction hash", 0},
		{"approve a paid order", approve, paid, note, platform.KindConflict, "paid already", 0},
		{"approve", approve, "", note, "", "", schema.StatusPaid},
		{"reject", reject, "", reason, "", "", schema.StatusReady},
	}
	for i, tt := range tests {
		id := tt.id
		if id == "" { // an order of its own under review
			id = h.underReview(hash64(fmt.Sprintf("%02x", 0xc0+i)))
		}
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.store.Get(ctx, id)
			o, err := tt.decide(ctx, id, tt.d)
			if tt.kind != "" {
				if kindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("err %v, want %s naming %q", err, tt.kind, tt.msg)
				}
				if after, _ := h.store.Get(ctx, id); after.Version != before.Version {
					t.Fatalf("a refused decision changed the order: v%d -> v%d", before.Version, after.Version)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != tt.want {
				t.Fatalf("status %s, want %s", o.Status, tt.want)
			}
		})
	}
}
