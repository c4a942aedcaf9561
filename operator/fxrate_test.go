package operator

import (
	"context"
	"errors"
	"testing"

	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
)

// TestSetRateDeviation: a rate more than FXMaxDeviation (10 %) from the
// pair's current one is refused with a conflict wrapping
// *fx.DeviationError unless confirmed, up or down; a first rate, one
// within the bound and a confirmed one are set, and only the confirmed
// big change is flagged in the audit entry.
func TestSetRateDeviation(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		before    string // the pair's current rate; "" none
		rate      string
		confirmed bool
		refused   bool
		flag      string // the audit entry's deviation_confirmed
	}{
		{"first rate", "", "1215", false, false, ""},
		{"within, up", "121.5", "133.65", false, false, ""},
		{"within, down", "121.5", "109.35", false, false, ""},
		{"beyond, up, not confirmed", "121.5", "1215", false, true, ""},
		{"beyond, up, confirmed", "121.5", "1215", true, false, "above 900.0%"},
		{"beyond, down, not confirmed", "121.5", "12.15", false, true, ""},
		{"beyond, down, confirmed", "121.5", "12.15", true, false, "below 90.0%"},
		{"just beyond", "100", "110.000001", false, true, ""},
		{"confirmed but within", "121.5", "122", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := miniRedis(t)
			s := newSettings(rdb)
			if tt.before != "" {
				if _, err := s.SetRate(ctx, opAdmin, "USD", "BDT", tt.before, false); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.SetRate(ctx, opAdmin, "USD", "BDT", tt.rate, tt.confirmed)
			var de *fx.DeviationError
			if tt.refused != errors.As(err, &de) || tt.refused != isKind(err, platform.KindConflict) || (!tt.refused && err != nil) {
				t.Fatalf("set %s after %q (confirmed %v): %v, want refused %v", tt.rate, tt.before, tt.confirmed, err, tt.refused)
			}
			_, cur, _, err := fx.NewStore(rdb).Get(ctx, fx.Pair{Base: "USD", Quote: "BDT"})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.rate
			if tt.refused {
				want = tt.before
			}
			if cur.String() != want {
				t.Fatalf("rate %s, want %s", cur, want)
			}
			rows := auditRows(t, rdb)
			last := rows[len(rows)-1]
			if got := last.Details["deviation_confirmed"]; got != tt.flag {
				t.Fatalf("audit %s %v: deviation_confirmed %q, want %q", last.Action, last.Details, got, tt.flag)
			}
			if tt.flag != "" && last.Details["old_rate"] != tt.before {
				t.Fatalf("audit %v: old_rate %q, want %q", last.Details, last.Details["old_rate"], tt.before)
			}
		})
	}
}

// TestSettingsConfig: the deviation is a percentage from 1 to
// fx.MaxDeviationPercent.
func TestSettingsConfig(t *testing.T) {
	for _, tt := range []struct {
		v  int
		ok bool
	}{{0, false}, {1, true}, {10, true}, {fx.MaxDeviationPercent, true}, {fx.MaxDeviationPercent + 1, false}, {-5, false}} {
		if err := (SettingsConfig{FXMaxDeviation: tt.v}).Validate(); (err == nil) != tt.ok {
			t.Errorf("FXMaxDeviation %d: %v, want ok %v", tt.v, err, tt.ok)
		}
	}
}
