package query

import (
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
)

func TestDefaults(t *testing.T) {
	valid := func() Config { c := Defaults(); c.PublicURL = "https://pay.test"; return c }
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", valid(), true},
		{"no public URL", Defaults(), false},
		{"negative report rate", func() Config { c := valid(); c.ReportLimit.PerSecond = -1; return c }(), false},
		{"negative query rate", func() Config { c := valid(); c.QueryLimit.PerSecond = -1; return c }(), false},
		{"negative report range", func() Config { c := valid(); c.ReportMaxRange = -time.Hour; return c }(), false},
		{"zero report range unfilled", func() Config { c := valid(); c.ReportMaxRange = 0; return c }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate: %v, want ok %v", err, tt.ok)
			}
		})
	}
	zero := Config{ReportLimit: platform.Limit{Burst: 5}}
	if zero.Validate(); zero.ReportLimit.PerSecond != 0 || zero.ReportMaxRange != 0 {
		t.Fatalf("Validate filled %+v", zero)
	}
	got := zero.withDefaults()
	if got.ReportLimit != (platform.Limit{PerSecond: 20, Burst: 40}) || got.ReportMaxRange != 366*24*time.Hour {
		t.Fatalf("zero config filled to report limit %+v, range %s; want 20/s:40, 8784h", got.ReportLimit, got.ReportMaxRange)
	}
	if got.QueryLimit != (platform.Limit{}) {
		t.Fatalf("withDefaults filled the query rate, the caller's: %+v", got.QueryLimit)
	}
}
