package command

import (
	"context"
	"errors"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestCreateFor: a create another door proved keeps every rule after the
// signature: the values' rules, the merchant's limits, the door's fields
// on the stored order, and a replay of its ClientOrderID while live.
func TestCreateFor(t *testing.T) {
	h := newRedisHarness(t)
	draft := func(change func(*Draft)) Draft {
		d := Draft{Amount: 12_30, Currency: "CNY", Method: schema.MethodWalletA, Description: "Box", ClientOrderID: "E-1",
			NotifyURL: "https://shop.test/n", ClientIP: "203.0.113.5", Door: schema.DoorEpay, DoorType: "t1", DoorParam: "a&b"}
		change(&d)
		return d
	}
	tests := []struct {
		name   string
		change func(*Draft)
		kind   platform.Kind
	}{
		{"bad clientOrderId", func(d *Draft) { d.ClientOrderID = "a b" }, platform.KindInvalidParameter},
		{"currency the method lacks", func(d *Draft) { d.Currency = "BDT" }, platform.KindUnsupportedMethod},
		{"amount under the method's limit", func(d *Draft) { d.Amount = 1 }, platform.KindInvalidParameter},
		{"notify_url not a URL", func(d *Draft) { d.NotifyURL = "shop" }, platform.KindInvalidParameter},
		{"description too long", func(d *Draft) { d.Description = string(make([]rune, 257)) }, platform.KindInvalidParameter},
		{"unknown lang", func(d *Draft) { d.Lang = "xx" }, platform.KindInvalidParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := h.create.CreateFor(context.Background(), h.acct, draft(tt.change))
			var pe *platform.Error
			if !errors.As(err, &pe) || pe.Kind != tt.kind {
				t.Fatalf("err %v, want %s", err, tt.kind)
			}
		})
	}
	o, replay, err := h.create.CreateFor(context.Background(), h.acct, draft(func(*Draft) {}))
	if err != nil || replay {
		t.Fatalf("create: %v (replay %v)", err, replay)
	}
	stored, err := h.store.Get(context.Background(), o.ID)
	if err != nil || stored.Door != schema.DoorEpay || stored.DoorType != "t1" || stored.DoorParam != "a&b" ||
		stored.ClientIP != "203.0.113.5" || stored.ClientOrderID != "E-1" || stored.Lang != "en" {
		t.Fatalf("stored %+v, %v", stored, err)
	}
	again, replay, err := h.create.CreateFor(context.Background(), h.acct, draft(func(*Draft) {}))
	if err != nil || !replay || again.ID != o.ID {
		t.Fatalf("replay: %v, %v, %v", again, replay, err)
	}
}
