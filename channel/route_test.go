package channel

import (
	"slices"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// configured is a fixed channel list per method.
type configured map[schema.Method][]string

func (c configured) Channels(m schema.Method, _ bool) []string { return c[m] }

func routerWith(t *testing.T, ids []string, snap *Snapshot) *Router {
	t.Helper()
	d := NewDirectory(nil, 0, nil)
	if snap != nil {
		d.cur.Store(snap)
	}
	return NewRouter(d, configured{schema.MethodWalletA: ids})
}

func snapWith(settings map[string]Settings) *Snapshot {
	s := &Snapshot{Settings: map[Ref]Settings{}, Breakers: map[Ref]Breaker{}, Modes: map[string]Mode{}, Pins: map[string][]string{}}
	for id, v := range settings {
		s.Settings[Ref{Method: schema.MethodWalletA, ID: id}] = v
	}
	return s
}

func ids(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Ref.ID
	}
	return out
}

var noon = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func query(amount schema.Amount, at time.Time) Query {
	return Query{Method: schema.MethodWalletA, AppID: "1001", Amount: amount, At: at}
}

func TestEligibility(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		q    Query
		want bool
	}{
		{"defaults serve everyone", Defaults(), query(100_00, noon), true},
		{"disabled", Settings{Disabled: true}, query(100_00, noon), false},
		{"maintenance", Settings{Maintenance: true}, query(100_00, noon), false},
		{"below min", Settings{MinAmount: 10_00}, query(9_99, noon), false},
		{"at min", Settings{MinAmount: 10_00}, query(10_00, noon), true},
		{"above max", Settings{MaxAmount: 500_00}, query(500_01, noon), false},
		{"inside hours", Settings{Active: "09:00-17:00"}, query(1, noon), true},
		{"outside hours", Settings{Active: "13:00-17:00"}, query(1, noon), false},
		{"hours past midnight, late", Settings{Active: "22:00-06:00"}, query(1, noon.Add(11*time.Hour)), true},
		{"hours past midnight, noon", Settings{Active: "22:00-06:00"}, query(1, noon), false},
		// 12:00 UTC is 20:00 in Shanghai: outside 09:00-17:00 there.
		{"hours in the channel's zone", Settings{Active: "09:00-17:00", TimeZone: "Asia/Shanghai"}, query(1, noon), false},
		{"listed merchant", Settings{Merchants: []string{"1001"}}, query(1, noon), true},
		{"unlisted merchant", Settings{Merchants: []string{"1002"}}, query(1, noon), false},
		{"group member", Settings{Group: "vip"}, Query{Method: schema.MethodWalletA, AppID: "1001", Group: "vip", Amount: 1, At: noon}, true},
		{"not in group", Settings{Group: "vip"}, query(1, noon), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := routerWith(t, []string{"a"}, snapWith(map[string]Settings{"a": tc.s}))
			if got := r.Available(tc.q); got != tc.want {
				t.Fatalf("available %v, want %v", got, tc.want)
			}
		})
	}
}

func TestUnconfiguredChannelNeverRoutes(t *testing.T) {
	// Routing data for a channel without credentials makes no channel.
	r := routerWith(t, []string{"a"}, snapWith(map[string]Settings{"ghost": Defaults()}))
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("candidates %v, want [a]", got)
	}
}

func TestBreakerKeepsChannelOut(t *testing.T) {
	s := snapWith(nil)
	ref := Ref{Method: schema.MethodWalletA, ID: "a"}
	s.Breakers[ref] = Breaker{State: Open, Since: noon, Probe: noon.Add(30 * time.Second)}
	r := routerWith(t, []string{"a", "b"}, s)
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("open breaker: candidates %v, want [b]", got)
	}
	if got := ids(r.Candidates(query(1, noon.Add(31*time.Second)))); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("probe due: candidates %v, want [a b]", got)
	}
	s.Breakers[ref] = Breaker{State: Open, Since: noon} // opened by hand: no probe
	if got := ids(r.Candidates(query(1, noon.Add(time.Hour)))); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("opened by hand: candidates %v, want [b]", got)
	}
}

func TestPinNarrowsToTheMerchantsSet(t *testing.T) {
	s := snapWith(nil)
	s.Pins["1001:"+methodKey(false, schema.MethodWalletA)] = []string{"c"}
	r := routerWith(t, []string{"a", "b", "c"}, s)
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("pinned merchant: %v, want [c]", got)
	}
	q := query(1, noon)
	q.AppID = "1002"
	if got := ids(r.Candidates(q)); len(got) != 3 {
		t.Fatalf("other merchant: %v, want all three", got)
	}
}

func TestPriorityFallsThroughInOrder(t *testing.T) {
	r := routerWith(t, []string{"a", "b", "c"}, snapWith(map[string]Settings{
		"a": {Priority: 3}, "b": {Priority: 1}, "c": {Priority: 2}}))
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Fatalf("priority order %v, want [b c a]", got)
	}
}

func TestTiesKeepConfigurationOrder(t *testing.T) {
	// "alt" sorts before "default", but the configuration lists default
	// first: with nothing set, the first account configured is tried first.
	r := routerWith(t, []string{"default", "alt"}, snapWith(nil))
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"default", "alt"}) {
		t.Fatalf("order %v, want the configuration's [default alt]", got)
	}
}

func TestRoundRobinRotates(t *testing.T) {
	s := snapWith(nil)
	s.Modes[methodKey(false, schema.MethodWalletA)] = ModeRoundRobin
	r := routerWith(t, []string{"a", "b", "c"}, s)
	var firsts []string
	for range 6 {
		firsts = append(firsts, r.Candidates(query(1, noon))[0].Ref.ID)
	}
	if want := []string{"a", "b", "c", "a", "b", "c"}; !slices.Equal(firsts, want) {
		t.Fatalf("round robin firsts %v, want %v", firsts, want)
	}
}

func TestWeightedFollowsWeights(t *testing.T) {
	s := snapWith(map[string]Settings{"a": {Weight: 1}, "b": {Weight: 3}})
	s.Modes[methodKey(false, schema.MethodWalletA)] = ModeWeighted
	r := routerWith(t, []string{"a", "b"}, s)
	n := map[string]int{}
	for range 4000 {
		cs := r.Candidates(query(1, noon))
		if len(cs) != 2 {
			t.Fatalf("weighted ranking dropped a channel: %v", ids(cs))
		}
		n[cs[0].Ref.ID]++
	}
	// Expected 1000 and 3000; the bounds are many deviations wide.
	if n["a"] < 800 || n["a"] > 1200 {
		t.Fatalf("first picks %v, want about 1:3", n)
	}
}

func TestKnownFullChannelIsSkippedForAWhile(t *testing.T) {
	r := routerWith(t, []string{"a", "b"}, snapWith(map[string]Settings{"a": {DailyCount: 1}}))
	ref := Ref{Method: schema.MethodWalletA, ID: "a"}
	r.MarkFull(ref, "20261128", noon)
	if got := ids(r.Candidates(query(1, noon))); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("full: %v, want [b]", got)
	}
	if got := ids(r.Candidates(query(1, noon.Add(fullFor)))); len(got) != 2 {
		t.Fatalf("after the memo: %v, want both", got)
	}
}
