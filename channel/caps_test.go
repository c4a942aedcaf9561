package channel

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func capped(id string, s Settings) Candidate {
	return Candidate{Ref: Ref{Method: schema.MethodWalletA, ID: id}, Settings: s}
}

// Two hundred orders race for a cap of ten on the real Redis: exactly ten
// get it, and the counter never reads eleven.
func TestCapHoldsUnderConcurrency(t *testing.T) {
	rdb := testenv.Redis(t)
	caps := NewCaps(rdb)
	c := capped(fmt.Sprintf("race%d", time.Now().UnixNano()%1e6), Settings{DailyCount: 10})
	var ok, full atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			res, err := caps.Reserve(context.Background(), c, fmt.Sprintf("o%03d", i), 1_00, noon)
			switch {
			case err != nil:
				t.Error(err)
			case res == ReservedOK:
				ok.Add(1)
			case res == FullCount:
				full.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 10 || full.Load() != 190 {
		t.Fatalf("reserved %d, refused %d; want 10 and 190", ok.Load(), full.Load())
	}
	u, err := caps.Used(context.Background(), c.Ref, c.Settings.Day(noon))
	if err != nil || u.Count != 10 || u.Amount != 10_00 {
		t.Fatalf("used %+v, %v; want 10 orders, 10.00", u, err)
	}
}

func TestCapReserveAndRelease(t *testing.T) {
	rdb := testenv.Redis(t)
	caps := NewCaps(rdb)
	ctx := context.Background()
	c := capped(fmt.Sprintf("amt%d", time.Now().UnixNano()%1e6), Settings{DailyAmount: 100_00})
	steps := []struct {
		name  string
		order string
		amt   schema.Amount
		want  Reserved
	}{
		{"first order", "o1", 60_00, ReservedOK},
		{"the same order again takes nothing more", "o1", 60_00, ReservedOK},
		{"would pass the amount cap", "o2", 40_01, FullAmount},
		{"fits exactly", "o3", 40_00, ReservedOK},
	}
	for _, s := range steps {
		got, err := caps.Reserve(ctx, c, s.order, s.amt, noon)
		if err != nil || got != s.want {
			t.Fatalf("%s: %v, %v; want %v", s.name, got, err, s.want)
		}
	}
	for i, want := range []bool{true, false} { // released once only
		if got, err := caps.Release(ctx, c.Ref, "o1"); err != nil || got != want {
			t.Fatalf("release %d: %v, %v; want %v", i, got, err, want)
		}
	}
	if got, _ := caps.Reserve(ctx, c, "o2", 40_01, noon); got != ReservedOK {
		t.Fatalf("after releasing 60.00 of 100.00 used, 40.01 more: %v; want it to fit", got)
	}
	if got, _ := caps.Reserve(ctx, c, "o4", 20_00, noon); got != FullAmount {
		t.Fatalf("80.01 used, 20.00 more: %v; want the amount cap", got)
	}
	if got, _ := caps.Release(ctx, c.Ref, "never"); got {
		t.Fatal("released an order that held nothing")
	}
}

// The cap counts a day of the channel's own zone: at 23:59 and 00:01 in
// Shanghai the counters differ, though both instants fall on one UTC day.
func TestCapResetsAtTheZonesMidnight(t *testing.T) {
	rdb := testenv.Redis(t)
	caps := NewCaps(rdb)
	ctx := context.Background()
	c := capped(fmt.Sprintf("tz%d", time.Now().UnixNano()%1e6), Settings{DailyCount: 1, TimeZone: "Asia/Shanghai"})
	before := time.Date(2026, 11, 28, 15, 59, 0, 0, time.UTC) // 23:59 in Shanghai
	after := before.Add(2 * time.Minute)                      // 00:01 the next day there
	if got, _ := caps.Reserve(ctx, c, "late", 1, before); got != ReservedOK {
		t.Fatalf("23:59: %v", got)
	}
	if got, _ := caps.Reserve(ctx, c, "later", 1, before.Add(30*time.Second)); got != FullCount {
		t.Fatalf("23:59:30, cap of one used: %v", got)
	}
	if got, _ := caps.Reserve(ctx, c, "next-day", 1, after); got != ReservedOK {
		t.Fatalf("00:01 the next local day: %v; want a fresh cap", got)
	}
}

func TestUncappedChannelCostsNoRedis(t *testing.T) {
	caps := NewCaps(nil) // any call would panic
	got, err := caps.Reserve(context.Background(), capped("free", Defaults()), "o1", 1, noon)
	if err != nil || got != NotCapped {
		t.Fatalf("%v, %v", got, err)
	}
}
