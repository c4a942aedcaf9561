package command

import (
	"context"
	"testing"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestChannelConfirmReplay: the select page's choice routes once; a payer
// replaying it gets a conflict and the order keeps its channel.
func TestChannelConfirmReplay(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	r.set(t, "b", channel.Settings{Priority: 1})
	o := h.selectOrder("CNY", "100", "")
	ctx := context.Background()
	chosen, err := h.uc.Choose.ChooseMethod(ctx, o.ID, schema.MethodWalletA)
	if err != nil {
		t.Fatal(err)
	}
	if chosen.Channel != "a" || chosen.Status != schema.StatusReady {
		t.Fatalf("chosen on %q, %s", chosen.Channel, chosen.Status)
	}
	r.set(t, "a", channel.Settings{Disabled: true}) // b would be chosen now
	_, err = h.uc.Choose.ChooseMethod(ctx, o.ID, schema.MethodWalletA)
	wantKind(t, err, platform.KindConflict)
	if got := h.order(t, o.ID); got.Channel != "a" || r.provs["b"].Calls.Load() != 0 {
		t.Errorf("after the replay: channel %q, b asked %d times", got.Channel, r.provs["b"].Calls.Load())
	}
}

// TestChannelConfirmReplayPastTheCheck: a confirm that read the order
// before another fixed the choice (so it passed the waiting-at-select
// check) still gets a conflict from Redis, and the order stays on a.
func TestChannelConfirmReplayPastTheCheck(t *testing.T) {
	h := newRedisHarness(t)
	r := h.withChannels(t, "a", "b")
	r.set(t, "b", channel.Settings{Priority: 1})
	o := h.selectOrder("CNY", "100", "")
	ctx := context.Background()
	stale := h.order(t, o.ID) // read while it still waits at the select page
	if _, err := h.uc.Choose.ChooseMethod(ctx, o.ID, schema.MethodWalletA); err != nil {
		t.Fatal(err)
	}
	r.set(t, "a", channel.Settings{Disabled: true}) // b would be chosen now
	stale.Method = schema.MethodWalletA
	h.uc.Choose.init.recordFee(stale)
	wantKind(t, h.uc.Choose.applyChoice(ctx, stale), platform.KindConflict)
	if got := h.order(t, o.ID); got.Channel != "a" || r.provs["b"].Calls.Load() != 0 {
		t.Errorf("after the raced replay: channel %q, b asked %d times", got.Channel, r.provs["b"].Calls.Load())
	}
}
