package payout

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestStreamEntriesDecode: every entry the scripts write to the payouts'
// stream reads back (DecodeEntry) as the payout or destination it was
// written for, and a destination's view never carries its account number.
func TestStreamEntriesDecode(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	d := e.usable(t, bank("1001"))
	p := e.asked(t, d)
	if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.MarkPaid(ctx, p.ID, "", "", "REF-1", entry("ann")); err != nil {
		t.Fatal(err)
	}
	if err := e.s.RemoveDestination(ctx, "1001", d.ID, "merchant:u1", entry("u1")); err != nil {
		t.Fatal(err)
	}
	msgs, err := e.rdb.XRange(ctx, schema.PayoutEventsKey(schema.HomeShard("1001")), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		en, err := DecodeEntry(m.Values)
		if err != nil {
			t.Fatalf("entry %v: %v", m.Values, err)
		}
		if en.At.Before(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)) || en.At.After(e.now) {
			t.Fatalf("entry %s at %v", en.Type, en.At)
		}
		if en.Type == EntryTypeDestination {
			v := ViewDestination(en.Destination)
			raw, _ := json.Marshal(v)
			if en.Destination.ID != d.ID || strings.Contains(string(raw), d.Account) || !strings.HasSuffix(v.Where, "1332") {
				t.Fatalf("destination entry %+v viewed as %s", en.Destination, raw)
			}
			got = append(got, en.Type+":"+map[bool]string{true: "added", false: "removed"}[v.Removed == ""])
			continue
		}
		if en.Payout.ID != p.ID || en.Payout.AppID != "1001" || en.Payout.Amount != p.Amount {
			t.Fatalf("payout entry %s: %+v", en.Type, en.Payout)
		}
		got = append(got, en.Type+":"+string(en.Payout.State))
	}
	want := "[payout_destination.changed:added payout.requested:requested payout.approved:approved payout.paid:paid payout_destination.changed:removed]"
	if s := "[" + strings.Join(got, " ") + "]"; s != want {
		t.Fatalf("entries %s\nwant %s", s, want)
	}
}
