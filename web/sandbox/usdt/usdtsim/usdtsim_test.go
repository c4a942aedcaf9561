package usdtsim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paygate/gateway/provider"
)

func TestChain(t *testing.T) {
	g := DefaultGenesis
	now := g
	c := Chain{Genesis: g, Interval: 3 * time.Second, Now: func() time.Time { return now }}
	cases := []struct {
		name string
		at   time.Time
		want int64
	}{
		{"before genesis", g.Add(-time.Second), 0},
		{"genesis", g, 1},
		{"within the first block", g.Add(2999 * time.Millisecond), 1},
		{"second block", g.Add(3 * time.Second), 2},
		{"a day later", g.Add(24 * time.Hour), 28801},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.BlockAt(tc.at); got != tc.want {
				t.Errorf("BlockAt(%v) = %d, want %d", tc.at, got, tc.want)
			}
			if tc.want > 0 && c.BlockAt(c.TimeOf(tc.want)) != tc.want {
				t.Errorf("TimeOf(%d) = %v is not in block %d", tc.want, c.TimeOf(tc.want), tc.want)
			}
		})
	}
	now = g.Add(30 * time.Second)
	if c.Head() != 11 {
		t.Errorf("Head = %d after 30 s, want 11", c.Head())
	}
}

func TestFailures(t *testing.T) {
	s := Store{State: &provider.MemState{}, Prefix: "t:", Hang: time.Minute}
	ctx := context.Background()
	if err := s.SetFailure(ctx, "h", "burn"); err == nil {
		t.Error("an unknown failure was accepted")
	}
	answer := func(ctx context.Context) (int, bool) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
		did := s.Misbehave(rec, req, "h")
		return rec.Code, did
	}
	if _, did := answer(ctx); did {
		t.Error("misbehaved with no failure ordered")
	}
	_ = s.SetFailure(ctx, "h", Down)
	if code, did := answer(ctx); !did || code != http.StatusServiceUnavailable {
		t.Errorf("Down answered %d (%v)", code, did)
	}
	_ = s.SetFailure(ctx, "h", Hang)
	gone, cancel := context.WithCancel(ctx)
	cancel() // the caller gave up: the hang ends with it, not after a minute
	if code, did := answer(gone); !did || code != http.StatusGatewayTimeout {
		t.Errorf("Hang answered %d (%v)", code, did)
	}
	_ = s.SetFailure(ctx, "h", Healthy)
	if _, did := answer(ctx); did {
		t.Error("misbehaved after healing")
	}
}
