package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// TestCancel: the payer's cancel takes a live order to cancelled once, with
// one cancelled event; a repeat answers the order; a paid or failed order
// refuses; a USDT amount the order held is free again.
func TestCancel(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	created := func(method, currency string) string {
		p := h.baseParams()
		p["paymentMethod"], p["currency"] = method, currency
		return h.createOK(p)["paymentId"].(string)
	}
	pending := created("wallet_a", "CNY")
	// A pending order: its provider has not answered yet.
	if _, err := h.rdb.HSet(ctx, orderKey(pending), schema.FStatus, int(schema.StatusPending)).Result(); err != nil {
		t.Fatal(err)
	}
	paid := created("wallet_a", "CNY")
	if _, err := h.uc.Settle.Move(ctx, paid, schema.StatusPaid); err != nil {
		t.Fatal(err)
	}
	failed := created("wallet_a", "CNY")
	if _, err := h.uc.Settle.Move(ctx, failed, schema.StatusFailed); err != nil {
		t.Fatal(err)
	}
	usdt := created("usdt_direct", "CNY")
	chosenUSDT := h.selectOrder("USD", "100", "").ID
	if _, err := h.uc.Choose.ChooseMethod(ctx, chosenUSDT, schema.MethodUSDTDirect); err != nil {
		t.Fatal(err)
	}
	again := created("cryptohost", "USD")
	if _, err := h.uc.Cancel.Cancel(ctx, again); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		id     string
		kind   platform.Kind
		events string // the order's events after the cancel
	}{
		{"ready", created("cryptohost", "USD"), "", "[created ready cancelled]"},
		{"pending", pending, "", "[created ready cancelled]"},
		{"a select order", h.selectOrder("USD", "100", "").ID, "", "[created cancelled]"},
		{"usdt_direct", usdt, "", "[created cancelled]"},
		{"usdt_direct chosen on the select page", chosenUSDT, "", "[created changed cancelled]"},
		{"cancelled again", again, "", "[created ready cancelled]"},
		{"paid", paid, platform.KindConflict, "[created ready paid]"},
		{"failed", failed, platform.KindConflict, "[created ready failed]"},
		{"no such order", schema.NewOrderID(h.uc.Create.now(), 2), platform.KindNotFound, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.uc.Orders.Order(ctx, tt.id)
			moves := testutil.ToFloat64(h.uc.Create.m.moves.WithLabelValues("cancelled"))
			o, err := h.uc.Cancel.Cancel(ctx, tt.id)
			if kindOf(err) != tt.kind || (tt.kind == "" && err != nil) {
				t.Fatalf("err %v, want kind %q", err, tt.kind)
			}
			if types, _ := orderEvents(t, h, tt.id); fmt.Sprint(types) != tt.events {
				t.Fatalf("events %v, want %s", types, tt.events)
			}
			if err != nil {
				return
			}
			if o.Status != schema.StatusCancelled || o.Expired {
				t.Fatalf("order after cancel: %+v (a cancel is no expiry)", o)
			}
			counted := testutil.ToFloat64(h.uc.Create.m.moves.WithLabelValues("cancelled")) - moves
			if want := map[bool]float64{true: 1, false: 0}[before.Status.Live()]; counted != want {
				t.Fatalf("counted %v moves, want %v", counted, want)
			}
			if o.PayableAmount != "" {
				if _, err := h.rdb.Get(ctx, schema.USDTAmountKey(o.PayableAmount)).Result(); !errors.Is(err, redis.Nil) {
					t.Fatalf("the USDT amount %s is still held: %v", o.PayableAmount, err)
				}
			}
		})
	}
}

func orderKey(id string) string {
	shard, _ := schema.ParseOrderID(id)
	return schema.OrderKey(shard, id)
}

// TestTwoStepUseCases: the option lists and confirms as data, the way the
// checkout's pages call them.
func TestTwoStepUseCases(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	if _, err := h.uc.Orders.Order(ctx, schema.NewOrderID(h.uc.Create.now(), 3)); kindOf(err) != platform.KindNotFound {
		t.Fatalf("a missing order: %v", err)
	}
	fiat, _ := h.uc.Orders.Order(ctx, h.deferred("fiatpsp", "USD", "100"))
	systems, err := h.uc.Confirm.FiatpspSystems(ctx, fiat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range systems {
		got = append(got, fmt.Sprintf("%d %s %s %q %v", s.ID, s.Currency, s.Quote, s.Rate, s.Available))
	}
	if want := `12 EUR 90.00 "0.9" true|7 USD 100.00 "" true|36 RUB 0.00 "" false`; strings.Join(got, "|") != want {
		t.Fatalf("systems %s\nwant    %s", strings.Join(got, "|"), want)
	}
	o, err := h.uc.Confirm.ConfirmFiatpsp(ctx, fiat.ID, "7")
	if err != nil || o.Status != schema.StatusReady || o.ProviderURL == "" || o.NextAction != "" || o.FiatpspSystemID != "7" ||
		o.ChargeCurrency != "" || o.Version != fiat.Version+2 {
		t.Fatalf("after ConfirmFiatpsp: %+v %v", o, err)
	}
	crypto, _ := h.uc.Orders.Order(ctx, h.deferred("cryptopsp", "USD", "10"))
	curs, err := h.uc.Confirm.CryptoCurrencies(ctx, crypto)
	if err != nil || fmt.Sprint(curs) != "[{btc 30.00 false} {eth 1.00 true}]" {
		t.Fatalf("currencies %v %v", curs, err)
	}
	if _, err := h.uc.Confirm.ConfirmCryptopsp(ctx, crypto.ID, "btc"); kindOf(err) != platform.KindBelowMinimum {
		t.Fatalf("below the minimum: %v", err)
	}
	o, err = h.uc.Confirm.ConfirmCryptopsp(ctx, crypto.ID, "eth")
	if err != nil || o.PayCurrency != "eth" || o.ProviderURL == "" || o.NextAction != "" {
		t.Fatalf("after ConfirmCryptopsp: %+v %v", o, err)
	}
	if p := h.prov.Last.Load().(provider.Payment); p.PayCurrency != "eth" || p.OrderID != crypto.ID {
		t.Fatalf("provider asked for %+v", p)
	}
	if _, err := h.uc.Confirm.ConfirmCryptopsp(ctx, crypto.ID, "eth"); kindOf(err) != platform.KindConflict {
		t.Fatalf("a second confirm: %v", err)
	}
}
