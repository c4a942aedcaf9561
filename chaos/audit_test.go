package chaos

import (
	"strings"
	"testing"
	"time"
)

// healthy is a snapshot that passes every rule: one answered create paid
// with its webhook delivered, one failed create, a payer and a shop whose
// balances moved by the payment, a stream trimmed below what groups need.
func healthy() Snapshot {
	return Snapshot{
		Creates: []Create{
			{AppID: "a", ClientOrderID: "c1", PaymentID: "P1", HTTPStatus: 200},
			{AppID: "a", ClientOrderID: "c1", PaymentID: "P1", HTTPStatus: 200}, // a repeat, same order
			{AppID: "a", HTTPStatus: 0},
		},
		Orders: map[string]Order{
			"P1": {ID: "P1", AppID: "a", ClientOrderID: "c1", Status: 2, Version: 3, Amount: 500, NotifyURL: "http://r/h"},
		},
		Rows:     map[string]Row{"P1": {Rows: 1, Status: 2, Version: 3}},
		Webhooks: map[string]Webhook{"P1": {Acked: 1, State: "delivered"}},
		Balances: []Balance{
			{Who: "payer", Start: 1000, End: 500, Moved: 500, Sign: -1},
			{Who: "shop", Start: 0, End: 500, Moved: 500, Sign: 1},
		},
		Streams: []Stream{{Key: "s", MaxDeleted: "100-0", Groups: []Group{
			{Name: "projector", LastDelivered: "200-0", PendingLower: "150-1"},
			{Name: "dispatcher", LastDelivered: "300-0"},
		}}},
		CheckCH: true,
	}
}

func TestAudit(t *testing.T) {
	tests := []struct {
		name  string
		plant func(s *Snapshot)
		want  string // a fragment of the one problem expected; "" for a pass
	}{
		{"healthy", func(*Snapshot) {}, ""},
		{"an answered order missing from Redis", func(s *Snapshot) { delete(s.Orders, "P1") }, "lost: P1 answered 2xx, not in Redis"},
		{"an order missing from ClickHouse", func(s *Snapshot) { delete(s.Rows, "P1") }, "P1 not in ClickHouse"},
		{"an order twice in ClickHouse", func(s *Snapshot) { s.Rows["P1"] = Row{Rows: 2, Status: 2, Version: 3} }, "P1 in ClickHouse 2 times"},
		{"ClickHouse behind Redis", func(s *Snapshot) { s.Rows["P1"] = Row{Rows: 1, Status: 1, Version: 2} }, "status 1 v2, Redis status 2 v3"},
		{"ClickHouse unreadable", func(s *Snapshot) { s.CheckCH = false }, "clickhouse: could not be read"},
		{"two live orders for one clientOrderId", func(s *Snapshot) {
			s.Orders["P2"] = Order{ID: "P2", AppID: "a", ClientOrderID: "c2", Status: 1}
			s.Orders["P3"] = Order{ID: "P3", AppID: "a", ClientOrderID: "c2", Status: 0}
		}, "a/c2 live in P2, P3"},
		{"a paid order without an acknowledged webhook", func(s *Snapshot) { s.Webhooks["P1"] = Webhook{State: "pending"} }, "P1 paid, no webhook acknowledged"},
		{"an acknowledged webhook not recorded", func(s *Snapshot) { s.Webhooks["P1"] = Webhook{Acked: 1, State: "pending"} }, "recorded as pending"},
		{"a webhook after its recorded success", func(s *Snapshot) { s.Webhooks["P1"] = Webhook{Acked: 2, AfterSuccess: 1, State: "delivered"} }, "after its recorded success"},
		{"a negative balance", func(s *Snapshot) { s.Balances[0] = Balance{Who: "payer", Start: 0, End: -500, Moved: 500, Sign: -1} }, "payer is negative"},
		{"money moved without a payment", func(s *Snapshot) { s.Balances[1].End = 700 }, "shop moved 700, its balance payments sum to 500"},
		{"trimmed past a pending entry", func(s *Snapshot) { s.Streams[0].MaxDeleted = "150-1" }, "group projector still has 150-1 pending"},
		{"trimmed past undelivered entries", func(s *Snapshot) { s.Streams[0].Groups[1].LastDelivered = "90-0" }, "group dispatcher had read only to 90-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := healthy()
			tt.plant(&s)
			f := Audit(s)
			if tt.want == "" {
				if !f.OK() {
					t.Fatalf("problems in a healthy snapshot: %v", f.Problems)
				}
				return
			}
			if len(f.Problems) != 1 || !strings.Contains(f.Problems[0], tt.want) {
				t.Fatalf("problems %q, want one containing %q", f.Problems, tt.want)
			}
		})
	}
}

func TestAuditFigures(t *testing.T) {
	s := healthy()
	s.Orders["P9"] = Order{ID: "P9", AppID: "a", Status: 1} // created, never answered 2xx
	f := Audit(s)
	if f.Answered != 2 || f.Failed != 1 || f.Orphans != 1 || f.Paid != 1 || f.Webhooks != 1 || !f.OK() {
		t.Fatalf("figures %+v", f)
	}
}

func TestAuditBoundsListedProblems(t *testing.T) {
	s := healthy()
	for _, id := range []string{"X1", "X2", "X3", "X4", "X5", "X6", "X7"} {
		s.Creates = append(s.Creates, Create{AppID: "a", PaymentID: id, HTTPStatus: 200})
	}
	f := Audit(s)
	if len(f.Problems) != maxListed+1 || !strings.Contains(f.Problems[maxListed], "lost: 2 more") {
		t.Fatalf("problems %q", f.Problems)
	}
}

func TestLessID(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1-0", "2-0", true},
		{"2-0", "10-0", true}, // numeric, not lexical
		{"5-2", "5-10", true},
		{"5-1", "5-1", false},
		{"0-0", "1-0", true},
	}
	for _, tt := range tests {
		if got := lessID(tt.a, tt.b); got != tt.want {
			t.Errorf("lessID(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestOutageFor(t *testing.T) {
	u := Usage{Entries: 1000, Bytes: 500_000, Seconds: 10} // 500 B an entry, 100 events/s
	tests := []struct {
		name     string
		headroom int64
		rate     float64
		want     time.Duration
	}{
		{"the formula", 1_000_000_000, 1000, 2000 * time.Second}, // 1e9 / (500 × 1000)
		{"at the measured rate", 50_000_000, u.EventsPerSecond(), 1000 * time.Second},
		{"no rate", 1 << 30, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := u.OutageFor(tt.headroom, tt.rate); got != tt.want {
				t.Fatalf("OutageFor(%d, %v) = %v, want %v", tt.headroom, tt.rate, got, tt.want)
			}
		})
	}
}
