package schema

import "testing"

func TestParseAmount(t *testing.T) {
	tests := []struct {
		name string
		lit  string
		want Amount
		ok   bool
	}{
		{"integer", "100", 10000, true},
		{"one decimal", "12.3", 1230, true},
		{"two decimals", "100.50", 10050, true},
		{"smallest", "0.01", 1, true},
		{"largest", "1000000000.00", MaxAmount, true},
		{"zero", "0", 0, false},
		{"zero decimals", "0.00", 0, false},
		{"over the ceiling", "1000000000.01", 0, false},
		{"three decimals", "1.001", 0, false},
		{"negative", "-5", 0, false},
		{"plus sign", "+5", 0, false},
		{"exponent", "1e3", 0, false},
		{"leading zero", "0100", 0, false},
		{"trailing dot", "5.", 0, false},
		{"leading dot", ".5", 0, false},
		{"space", " 5", 0, false},
		{"empty", "", 0, false},
		{"huge", "99999999999999999999", 0, false},
		{"hex", "0x10", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAmount(tt.lit)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseAmount(%q) err = %v, want ok=%v", tt.lit, err, tt.ok)
			}
			if got != tt.want {
				t.Fatalf("ParseAmount(%q) = %d, want %d", tt.lit, got, tt.want)
			}
		})
	}
}

func TestAmountString(t *testing.T) {
	for a, want := range map[Amount]string{1: "0.01", 10: "0.10", 10050: "100.50", 10000: "100.00", MaxAmount: "1000000000.00"} {
		if got := a.String(); got != want {
			t.Errorf("Amount(%d) = %s, want %s", a, got, want)
		}
	}
}
