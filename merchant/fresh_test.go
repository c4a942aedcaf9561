package merchant

import (
	"strconv"
	"testing"
	"time"
)

func TestCheckFresh(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	at := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	cases := []struct {
		name, ts string
		ok       bool
	}{
		{"now", at(0), true},
		{"a little ahead", at(4 * time.Minute), true},
		{"at the window's edge", at(-5 * time.Minute), true},
		{"six minutes old", at(-6 * time.Minute), false},
		{"six minutes ahead", at(6 * time.Minute), false},
		{"not a number", "yesterday", false},
		{"milliseconds", strconv.FormatInt(now.UnixMilli(), 10), false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckFresh(tt.ts, now, DefaultWindow); (err == nil) != tt.ok {
				t.Fatalf("CheckFresh(%s) = %v", tt.ts, err)
			}
		})
	}
}

func TestCheckRequestID(t *testing.T) {
	cases := []struct {
		name, id string
		ok       bool
	}{
		{"plain", "req-2026-11-28-1", true},
		{"empty", "", false},
		{"a space", "req 1", false},
		{"too long", string(make([]byte, 129)), false},
		{"non-ASCII", "réq", false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckRequestID(tt.id); (err == nil) != tt.ok {
				t.Fatalf("CheckRequestID(%q) = %v", tt.id, err)
			}
		})
	}
}
