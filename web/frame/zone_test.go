package frame

import (
	"testing"
	"time"
)

// TestWhen: a time reads in the viewer's zone with its offset written out
// and the zone's name in the tooltip; the instant stays in datetime.
func TestWhen(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 42, 5, 0, time.UTC)
	zone := func(name string) *time.Location {
		l, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		name string
		t    time.Time
		loc  *time.Location
		want string
	}{
		{"UTC", at, time.UTC, `<time datetime="2026-11-28T10:42:05Z" title="UTC">2026-11-28 10:42:05 UTC</time>`},
		{"no zone is UTC", at, nil, `<time datetime="2026-11-28T10:42:05Z" title="UTC">2026-11-28 10:42:05 UTC</time>`},
		{"east", at, zone("Asia/Shanghai"), `<time datetime="2026-11-28T10:42:05Z" title="Asia/Shanghai">2026-11-28 18:42:05 GMT+8</time>`},
		{"half hour", at, zone("Asia/Kolkata"), `<time datetime="2026-11-28T10:42:05Z" title="Asia/Kolkata">2026-11-28 16:12:05 GMT+5:30</time>`},
		{"west, the day before", at.Add(-8 * time.Hour), zone("America/Sao_Paulo"), `<time datetime="2026-11-28T02:42:05Z" title="America/Sao_Paulo">2026-11-27 23:42:05 GMT-3</time>`},
		{"a time given in another zone", at.In(zone("Europe/Madrid")), time.UTC, `<time datetime="2026-11-28T10:42:05Z" title="UTC">2026-11-28 10:42:05 UTC</time>`},
		{"zero", time.Time{}, zone("Asia/Shanghai"), "—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(When(tc.t, tc.loc)); got != tc.want {
				t.Errorf("When = %s\nwant   %s", got, tc.want)
			}
		})
	}
}
