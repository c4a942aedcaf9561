package command

import (
	"context"
	"testing"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestChannelConfirmReplay: the select page's choice routes once. A payer
// replaying it, or a confirm that read the order before another fixed the
// choice (so it passed the waiting-at-select check and meets Redis's),
// gets a conflict; the order keeps its channel and b is never asked.
func TestChannelConfirmReplay(t *testing.T) {
	tests := []struct {
		name   string
		replay func(h *harness, ctx context.Context, id string, stale *schema.Order) error
	}{
		{"replayed after the first", func(h *harness, ctx context.Context, id string, _ *schema.Order) error {
			_, err := h.uc.Choose.ChooseMethod(ctx, id, schema.MethodWalletA)
			return err
		}},
		{"raced past the select-page check", func(h *harness, ctx context.Context, _ string, stale *schema.Order) error {
			stale.Method = schema.MethodWalletA
			h.uc.Choose.init.recordFee(stale)
			return h.uc.Choose.applyChoice(ctx, stale)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			r := h.withChannels(t, "a", "b")
			r.set(t, "b", channel.Settings{Priority: 1})
			o := h.selectOrder("CNY", "100", "")
			ctx := context.Background()
			stale := h.order(t, o.ID) // read while it still waits at the select page
			chosen, err := h.uc.Choose.ChooseMethod(ctx, o.ID, schema.MethodWalletA)
			if err != nil {
				t.Fatal(err)
			}
			if chosen.Channel != "a" || chosen.Status != schema.StatusReady {
				t.Fatalf("chosen on %q, %s", chosen.Channel, chosen.Status)
			}
			r.set(t, "a", channel.Settings{Disabled: true}) // b would be chosen now
			wantKind(t, tt.replay(h, ctx, o.ID, stale), platform.KindConflict)
			if got := h.order(t, o.ID); got.Channel != "a" || r.provs["b"].Calls.Load() != 0 {
				t.Errorf("after the replay: channel %q, b asked %d times", got.Channel, r.provs["b"].Calls.Load())
			}
		})
	}
}
