package schema

import "testing"

func TestFee(t *testing.T) {
	cases := []struct {
		name   string
		f      FeeSchedule
		amount Amount
		want   Amount
	}{
		{"zero schedule", FeeSchedule{}, 100_00, 0},
		{"2.9% + 0.30", FeeSchedule{Bps: 290, Fixed: 30}, 100_00, 3_20},
		{"rounded half up", FeeSchedule{Bps: 250}, 1_01, 3},
		{"minimum", FeeSchedule{Bps: 100, Min: 50}, 10_00, 50},
		{"maximum", FeeSchedule{Bps: 500, Max: 2_00}, 100_00, 2_00},
		{"never above the amount", FeeSchedule{Fixed: 5_00}, 1_00, 1_00},
		{"minimum above the amount", FeeSchedule{Min: 10_00}, 3_00, 3_00},
		{"the largest order", FeeSchedule{Bps: MaxFeeBps}, MaxAmount, MaxAmount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Fee(c.amount); got != c.want {
				t.Fatalf("Fee(%s) = %s, want %s", c.amount, got, c.want)
			}
			back, err := ParseFeeSchedule(c.f.String())
			if err != nil || back != c.f {
				t.Fatalf("round trip %q: %+v %v", c.f.String(), back, err)
			}
		})
	}
}

func TestFeeScheduleRefused(t *testing.T) {
	for name, s := range map[string]string{
		"negative bps":   "-1:0:0:0",
		"bps over 100%":  "10001:0:0:0",
		"negative fixed": "0:-5:0:0",
		"min above max":  "0:0:500:100",
		"not a number":   "1.5:0:0:0",
		"three parts":    "1:2:3",
		"huge fixed":     "0:100000000001:0:0",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFeeSchedule(s); err == nil {
				t.Fatalf("%q accepted", s)
			}
		})
	}
}
