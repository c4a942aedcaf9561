package main

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestClockOffsetReachesTheRoles: serve with GATEWAY_CLOCK_OFFSET warns
// and creates orders by the moved clock (the id carries the creation time),
// so the chaos suite's clock-skew scenario really skews what a process
// writes; without the setting the order is on the real clock.
func TestClockOffsetReachesTheRoles(t *testing.T) {
	e := newE2E(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "skewed shop", "--sandbox", "--json")
	tests := []struct {
		name   string
		env    []string
		offset time.Duration
		warns  bool
	}{
		{"ahead", []string{"GATEWAY_CLOCK_OFFSET=5m"}, 5 * time.Minute, true},
		{"behind", []string{"GATEWAY_CLOCK_OFFSET=-5m"}, -5 * time.Minute, true},
		{"unset", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := e.serve(append([]string{"GATEWAY_ROLES=command"}, tt.env...)...)
			before := time.Now()
			r := s.create(t, createParams(shop.AppID), shop.APIKey)
			if r.Status != 200 {
				t.Fatalf("create: %+v", r)
			}
			at, ok := schema.OrderIDTime(r.Data["paymentId"].(string))
			if skew := at.Sub(before); !ok || skew < tt.offset-time.Second || skew > tt.offset+time.Minute {
				t.Fatalf("order created %s from the real clock, want %s", skew, tt.offset)
			}
			if warned := strings.Contains(s.logs.String(), "clock offset set"); warned != tt.warns {
				t.Fatalf("warned %v, want %v:\n%s", warned, tt.warns, s.logs)
			}
		})
	}
}
