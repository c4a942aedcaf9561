package main

import (
	"strconv"
	"testing"
	"time"
)

// TestRateLimitAcrossProcesses: two gateway processes share one merchant's
// createorder limit through Redis (set by the CLI), and the refused requests
// are 429s with Retry-After.
func TestRateLimitAcrossProcesses(t *testing.T) {
	e := newE2E(t)
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "limited", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "unlimited", "--sandbox", "--json")
	var limited struct {
		CreateLimit struct {
			PerSecond float64
			Burst     int
		} `json:"createLimit"`
	}
	e.cli(&limited, "merchant", "limits", shop.AppID, "--create", "5/s:5", "--json")
	if limited.CreateLimit.Burst != 5 {
		t.Fatalf("limits: %+v", limited)
	}
	a := e.serve("GATEWAY_ROLES=command")
	b := e.serve("GATEWAY_ROLES=command")

	start := time.Now()
	ok, refused := 0, 0
	for i := range 30 {
		s := a
		if i%2 == 1 {
			s = b
		}
		r := s.create(t, createParams(shop.AppID), shop.APIKey)
		switch r.Status {
		case 200:
			ok++
		case 429:
			refused++
			if r.Error != "rate_limited" || r.RetryAfter == "" {
				t.Fatalf("429 without its body or Retry-After: %+v", r)
			}
			if n, err := strconv.Atoi(r.RetryAfter); err != nil || n < 1 {
				t.Fatalf("Retry-After %q", r.RetryAfter)
			}
		default:
			t.Fatalf("create %d: %+v", i, r)
		}
	}
	elapsed := time.Since(start).Seconds()
	if max := 5 + int(5*elapsed) + 1; ok < 5 || ok > max {
		t.Fatalf("%d creates passed in %.2fs across two processes; the shared limit allows %d", ok, elapsed, max)
	}
	if refused == 0 {
		t.Fatal("nothing was refused")
	}
	if r := a.create(t, createParams(other.AppID), other.APIKey); r.Status != 200 {
		t.Fatalf("another merchant was limited too: %+v", r)
	}
}
