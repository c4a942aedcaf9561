package command

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestUSDTProgress: the reviewer's progress is kept on the order under
// review for that hash, without a version or an event; refused for another
// hash or a decided review; cleared by the outcome.
func TestUSDTProgress(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	hash := hash64("a9")
	id := h.underReview(hash)
	before, _ := h.store.Get(ctx, id)
	at := time.UnixMilli(time.Now().UnixMilli()).UTC()
	p := schema.USDTProgress{Step: schema.ReviewConfirming, NextCheck: at, Until: at.Add(time.Hour), Confirmations: 4, Required: 30}
	if err := h.uc.Review.Progress(ctx, id, hash, p); err != nil {
		t.Fatal(err)
	}
	o, _ := h.store.Get(ctx, id)
	if o.ReviewProgress != p || o.Version != before.Version || !o.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("progress %+v v%d (was v%d)", o.ReviewProgress, o.Version, before.Version)
	}
	if v := schema.USDTReviewOf(o); v.State != schema.ReviewConfirming || v.Confirmations != 4 || v.ConfirmationsRequired != 30 {
		t.Fatalf("view %+v", v)
	}
	if err := h.uc.Review.Progress(ctx, id, hash64("b9"), p); kindOf(err) != platform.KindConflict {
		t.Fatalf("progress for another hash: %v", err)
	}
	if _, err := h.uc.Review.Reject(ctx, id, hash, decision("r")); err != nil {
		t.Fatal(err)
	}
	if o, _ = h.store.Get(ctx, id); o.ReviewProgress != (schema.USDTProgress{}) {
		t.Fatalf("progress kept after the outcome: %+v", o.ReviewProgress)
	}
	if err := h.uc.Review.Progress(ctx, id, hash, p); kindOf(err) != platform.KindConflict {
		t.Fatalf("progress after the outcome: %v", err)
	}
}
