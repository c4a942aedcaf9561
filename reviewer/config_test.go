package reviewer

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(c *Config)
		want   string // part of the error; empty: valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"lease shorter than a review", func(c *Config) { c.Lease = 4 * c.Timeout }, "must exceed"},
		{"no backoff", func(c *Config) { c.Backoff = nil }, "backoff"},
		{"a zero backoff step", func(c *Config) { c.Backoff = []time.Duration{time.Second, 0} }, "backoff"},
		{"no batch", func(c *Config) { c.Batch = 0 }, "batch"},
		{"no window", func(c *Config) { c.Window = 0 }, "window"},
		{"no poll interval", func(c *Config) { c.PollInterval = 0 }, "poll interval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNewRefusesMissingDeps(t *testing.T) {
	e := newEnv(t)
	if _, err := New(testConfig(), Deps{Redis: e.rdb, Orders: e.orders, Networks: e.nets}, nil, nil); err == nil {
		t.Fatal("New accepted deps without backends, registry or logger")
	}
}
