package usdt

import "testing"

func TestUnits(t *testing.T) {
	cases := []struct {
		name, payable string
		decimals      int
		want          string
		bad           bool
	}{
		{"TRC20 vector", "12.347061", 6, "12347061", false},
		{"BEP20 vector", "12.347061", 18, "12347061000000000000", false},
		{"whole", "5", 6, "5000000", false},
		{"too many decimals", "1.0000001", 6, "", true},
		{"negative", "-1.00", 6, "", true},
		{"exponent", "1e3", 6, "", true},
		{"empty", "", 6, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Units(tc.payable, tc.decimals)
			if (err != nil) != tc.bad {
				t.Fatalf("Units(%q, %d) error %v, want bad=%v", tc.payable, tc.decimals, err, tc.bad)
			}
			if !tc.bad && got.String() != tc.want {
				t.Errorf("Units(%q, %d) = %s, want %s", tc.payable, tc.decimals, got, tc.want)
			}
		})
	}
}
