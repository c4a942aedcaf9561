package orderview

import (
	"testing"
	"time"
)

// TestOverviewInViewersZone: the overview's "today" and its days start at
// the viewer's midnight, and its buckets are labelled in their zone.
func TestOverviewInViewersZone(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC) // 04:00 on the 29th in Shanghai
	for _, tc := range []struct {
		name, rng string
		loc       *time.Location
		from      time.Time
	}{
		{"today in UTC", "today", time.UTC, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},
		{"today in Shanghai", "today", sh, time.Date(2026, 11, 28, 16, 0, 0, 0, time.UTC)},
		{"7 days in Shanghai", "7d", sh, time.Date(2026, 11, 22, 16, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, _, _, ok := span(tc.rng, now, tc.loc)
			if !ok || !from.Equal(tc.from) {
				t.Errorf("from %v, want %v", from.UTC(), tc.from)
			}
		})
	}
	for _, tc := range []struct {
		start, interval string
		loc             *time.Location
		want            string
	}{
		{"2026-11-28T16:00:00Z", "day", sh, "11-29"},
		{"2026-11-29T00:00:00+08:00", "day", sh, "11-29"},
		{"2026-11-28T20:00:00Z", "hour", sh, "04:00"},
		{"2026-11-28T20:00:00Z", "hour", time.UTC, "20:00"},
	} {
		if got := bucketLabel(tc.start, tc.interval, tc.loc); got != tc.want {
			t.Errorf("bucketLabel(%s, %s, %s) = %s, want %s", tc.start, tc.interval, tc.loc, got, tc.want)
		}
	}
}
