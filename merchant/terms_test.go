package merchant

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestSettleAt(t *testing.T) {
	paid := time.Date(2026, 11, 28, 15, 4, 5, 0, time.UTC)
	cases := []struct {
		name  string
		terms Terms
		want  time.Time
	}{
		{"default D+1 at 00:00 UTC", DefaultTerms(), time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)},
		{"instant", Terms{Instant: true}, paid},
		{"D+0 at a passed cut-off is at once", Terms{CutoffHour: 9, TimeZone: "UTC"}, paid},
		{"D+2 at 10:00 in Dhaka", Terms{DelayDays: 2, CutoffHour: 10, TimeZone: "Asia/Dhaka"},
			time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.terms.SettleAt(paid); !got.Equal(c.want) {
				t.Fatalf("SettleAt = %s, want %s", got, c.want)
			}
		})
	}
}

func TestTermsValidate(t *testing.T) {
	bad := map[string]Terms{
		"negative delay":        {DelayDays: -1},
		"hour 24":               {CutoffHour: 24},
		"reserve over 100%":     {ReserveBps: 10001, ReserveDays: 1},
		"reserve with no hold":  {ReserveBps: 500},
		"unknown time zone":     {TimeZone: "Mars/Olympus"},
		"negative reserve days": {ReserveDays: -3},
		"payout fee negative":   {Payouts: map[string]PayoutTerms{"USD": {Fee: -1}}},
		"payout minimum huge":   {Payouts: map[string]PayoutTerms{"USD": {Min: 100_000_001}}},
		"payout auto negative":  {Payouts: map[string]PayoutTerms{"USD": {AutoApproveBelow: -100}}},
		"payout currency":       {Payouts: map[string]PayoutTerms{"usd": {Fee: 100}}},
	}
	for name, tm := range bad {
		t.Run(name, func(t *testing.T) {
			if tm.Validate() == nil {
				t.Fatal("accepted")
			}
		})
	}
	if err := DefaultTerms().Validate(); err != nil {
		t.Fatal(err)
	}
	if got := termsFrom(`{"delayDays":-5}`); !reflect.DeepEqual(got, DefaultTerms()) {
		t.Fatalf("unreadable terms read as %+v", got)
	}
}

func TestPayoutTermsKept(t *testing.T) {
	tm := DefaultTerms().WithPayouts("USD", PayoutTerms{Min: 1000, Fee: 150, AutoApproveBelow: 5000})
	if err := tm.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tm)
	if err != nil {
		t.Fatal(err)
	}
	got := termsFrom(string(b))
	if p := got.PayoutsFor("USD"); p != (PayoutTerms{Min: 1000, Fee: 150, AutoApproveBelow: 5000}) {
		t.Fatalf("USD payout terms read back as %+v", p)
	}
	if p := got.PayoutsFor("EUR"); !p.Zero() {
		t.Fatalf("a currency without terms has %+v", p)
	}
	if cleared := got.WithPayouts("USD", PayoutTerms{}); cleared.Payouts != nil || got.Payouts == nil {
		t.Fatalf("clearing the only currency left %v (original %v)", cleared.Payouts, got.Payouts)
	}
}
