package main

import "testing"

func TestRewriteSoon(t *testing.T) {
	const mb = 1 << 20
	cases := []struct {
		name                string
		cur, base, min, pct int64
		wantThreshold       int64
		wantSoon            bool
	}{
		{"fresh AOF", 0, 0, 1024 * mb, 100, 1024 * mb, false},
		{"half way", 400 * mb, 0, 1024 * mb, 100, 1024 * mb, false},
		{"within a phase of the minimum", 600 * mb, 0, 1024 * mb, 100, 1024 * mb, true},
		{"base doubled decides", 1500 * mb, 1000 * mb, 1024 * mb, 100, 2000 * mb, true},
		{"far below a doubled base", 1100 * mb, 1000 * mb, 1024 * mb, 100, 2000 * mb, false},
		{"automatic rewrites off", 5000 * mb, 0, 1024 * mb, 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th, soon := rewriteSoon(c.cur, c.base, c.min, c.pct)
			if th != c.wantThreshold || soon != c.wantSoon {
				t.Errorf("rewriteSoon = %d MB, %v; want %d MB, %v", th/mb, soon, c.wantThreshold/mb, c.wantSoon)
			}
		})
	}
}
