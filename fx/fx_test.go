package fx

import (
	"context"
	"log/slog"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		name, lit string
		want      Rate
		ok        bool
	}{
		{"whole", "120", 120 * Micros, true},
		{"two decimals", "121.50", 121_500_000, true},
		{"six decimals", "0.000001", 1, true},
		{"seven decimals", "0.0000001", 0, false},
		{"zero", "0", 0, false},
		{"negative", "-1", 0, false},
		{"exponent", "1e3", 0, false},
		{"empty fraction", "12.", 0, false},
		{"empty", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRate(tt.lit)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseRate(%q) = %d, %v; want %d, ok %v", tt.lit, got, err, tt.want, tt.ok)
			}
		})
	}
	if s := Rate(121_500_000).String(); s != "121.5" {
		t.Fatalf("String = %q", s)
	}
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name   string
		amount schema.Amount
		rate   string
		want   schema.Amount
	}{
		{"USD 100.00 at 121.50", 100_00, "121.50", 12150_00},
		{"rounds half up", 1, "0.5", 1},          // 0.005 -> 0.01
		{"rounds down below half", 1, "0.49", 0}, // 0.0049 -> 0.00
		{"largest order at a large rate", schema.MaxAmount, "999.999999", 99_999_999_900_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRate(tt.rate)
			if err != nil {
				t.Fatal(err)
			}
			if got := Convert(tt.amount, r); got != tt.want {
				t.Fatalf("Convert(%d, %s) = %d, want %d", tt.amount, tt.rate, got, tt.want)
			}
		})
	}
}

// TestStoreAndRates: a rate set in Redis is seen by another process's copy
// at its next refresh, seeding never overwrites it, and history keeps both.
func TestStoreAndRates(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	s := NewStore(rdb)
	usdBDT := Pair{"USD", "BDT"}
	if err := s.Seed(ctx, usdBDT, 120*Micros); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, usdBDT, 121_500_000, "ops"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed(ctx, usdBDT, 100*Micros); err != nil {
		t.Fatal(err)
	}
	r := NewRates(s, 0, slog.Default())
	if _, ok := r.Rate(usdBDT); ok {
		t.Fatal("a rate before the first load")
	}
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Rate(usdBDT); !ok || got != 121_500_000 {
		t.Fatalf("rate %v %v, want 121.5 (seeding must not overwrite a set rate)", got, ok)
	}
	if got, ok := r.Rate(Pair{"BDT", "BDT"}); !ok || got != Micros {
		t.Fatalf("identity rate %v %v", got, ok)
	}
	h, err := s.History(ctx, 10)
	if err != nil || len(h) != 2 || h[0].Rate != "121.5" || h[1].Rate != "120" || h[0].By != "ops" {
		t.Fatalf("history %+v, %v", h, err)
	}
}
