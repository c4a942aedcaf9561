package client

import (
	"math"
	"testing"
)

func TestMinorUnits(t *testing.T) {
	for _, tt := range []struct {
		name   string
		amount string
		units  int64
		bad    bool
	}{
		{"two decimals", "100.50", 10050, false},
		{"whole", "100", 10000, false},
		{"one decimal", "100.5", 10050, false},
		{"zero", "0.00", 0, false},
		{"negative", "-25.00", -2500, false},
		{"largest", "92233720368547758.07", math.MaxInt64, false},
		{"three decimals", "1.001", 0, true},
		{"exponent", "1e2", 0, true},
		{"plus sign", "+1.00", 0, true},
		{"space", " 1.00", 0, true},
		{"dot only", "1.", 0, true},
		{"no whole part", ".50", 0, true},
		{"empty", "", 0, true},
		{"overflow", "92233720368547758.08", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMinor(tt.amount)
			if (err != nil) != tt.bad || got != tt.units {
				t.Fatalf("ParseMinor(%q) = %d, %v", tt.amount, got, err)
			}
		})
	}
	for units, want := range map[int64]string{10050: "100.50", 5: "0.05", 0: "0.00", -2500: "-25.00", math.MinInt64: "-92233720368547758.08"} {
		if got := FormatMinor(units); got != want {
			t.Errorf("FormatMinor(%d) = %q, want %q", units, got, want)
		}
	}
}
