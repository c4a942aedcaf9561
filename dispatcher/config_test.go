package dispatcher

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in   string
		want []time.Duration
		err  bool
	}{
		{"15s,1m,5m", []time.Duration{15 * time.Second, time.Minute, 5 * time.Minute}, false},
		{" 50ms , 100ms ", []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, false},
		{"1h", []time.Duration{time.Hour}, false},
		{"", nil, true},
		{"15s,,1m", nil, true},
		{"15", nil, true},
		{"0s", nil, true},
		{"-1s", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseSchedule(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("ParseSchedule(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestDefaultsFollowDesign(t *testing.T) {
	cfg := Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	want, _ := ParseSchedule("15s,1m,5m,15m,1h,2h,4h,8h,16h,24h,24h")
	if !slices.Equal(cfg.Schedule, want) || len(cfg.Schedule)+1 != 12 {
		t.Errorf("schedule %v, want DESIGN.md's 12 attempts %v", cfg.Schedule, want)
	}
	if cfg.Timeout != 10*time.Second || cfg.AllowPrivate || cfg.Jitter != 0.2 {
		t.Errorf("timeout %s, allow private %v, jitter %v", cfg.Timeout, cfg.AllowPrivate, cfg.Jitter)
	}
}

func TestBindReadsEnvironment(t *testing.T) {
	t.Setenv("GATEWAY_WEBHOOK_SCHEDULE", "1s,2s")
	t.Setenv("GATEWAY_WEBHOOK_TIMEOUT", "3s")
	t.Setenv("GATEWAY_WEBHOOK_ALLOW_PRIVATE", "true")
	cfg := Defaults()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg.Bind(fs)
	if err := fs.Parse([]string{"--webhook-per-host", "2"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Schedule, []time.Duration{time.Second, 2 * time.Second}) || cfg.Timeout != 3*time.Second ||
		!cfg.AllowPrivate || cfg.PerHost != 2 {
		t.Errorf("got %+v", cfg)
	}
}

func TestBindReportsBadEnvironment(t *testing.T) {
	t.Setenv("GATEWAY_WEBHOOK_SCHEDULE", "soon")
	t.Setenv("GATEWAY_WEBHOOK_TIMEOUT", "10")
	cfg := Defaults()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.Bind(fs)
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "GATEWAY_WEBHOOK_SCHEDULE") || !strings.Contains(err.Error(), "GATEWAY_WEBHOOK_TIMEOUT") {
		t.Fatalf("Validate() = %v, want both variables named", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"empty schedule", func(c *Config) { c.Schedule = nil }},
		{"zero delay", func(c *Config) { c.Schedule = []time.Duration{0} }},
		{"no timeout", func(c *Config) { c.Timeout = 0 }},
		{"no concurrency", func(c *Config) { c.Concurrency = 0 }},
		{"no per-host", func(c *Config) { c.PerHost = 0 }},
		{"jitter 1", func(c *Config) { c.Jitter = 1 }},
	}
	for _, tt := range tests {
		cfg := Defaults()
		tt.change(&cfg)
		if cfg.Validate() == nil {
			t.Errorf("%s: Validate accepted it", tt.name)
		}
	}
}

func TestJitterBounds(t *testing.T) {
	for range 1000 {
		d := jitter(time.Second, 0.2)
		if d < 800*time.Millisecond || d > 1200*time.Millisecond {
			t.Fatalf("jitter(1s, 0.2) = %s", d)
		}
	}
}
