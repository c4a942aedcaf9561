package chaos

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Create is one create the load sent and what it was answered. PaymentID
// is set only when the answer was 2xx: those are the creates the gateway
// promised to keep.
type Create struct {
	AppID         string
	ClientOrderID string
	PaymentID     string
	HTTPStatus    int // 0: no answer (connection refused, reset, time-out)
}

// Order is an order as Redis holds it (the system of record).
type Order struct {
	ID, AppID, ClientOrderID string
	Status                   int
	Version                  int64
	Amount                   int64 // minor units
	Method                   string
	NotifyURL                string
}

// Row is an order as ClickHouse lists it: Rows is how many rows SELECT ...
// FINAL returns for the id (1 when projected exactly once), Status and
// Version those of the highest version.
type Row struct {
	Rows    int
	Status  int
	Version int64
}

// Webhook is what the receiver and Redis say about one order's paid webhook.
type Webhook struct {
	Acked        int    // deliveries the receiver answered "success"
	AfterSuccess int    // deliveries that arrived when Redis already recorded success
	State        string // Redis delivery state: pending | delivered | dead | "" (none)
}

// Balance is one merchant balance the load moved money on: Start is what
// it was credited before the load, End what Redis holds now, Moved the sum
// of the balance payments recorded in orders (debits for a payer, credits
// for a shop, as Sign says).
type Balance struct {
	Who        string
	Start, End int64
	Moved      int64
	Sign       int64 // -1: the payments debit it; +1: they credit it
}

// Group is one consumer group of a stream: its last delivered id and the
// lowest id it still has pending ("" when none).
type Group struct {
	Name          string
	LastDelivered string
	PendingLower  string
}

// Stream is one shard's event stream: the highest id ever removed from it
// (XINFO STREAM max-deleted-entry-id, "0-0" when none) and its groups.
type Stream struct {
	Key        string
	MaxDeleted string
	Groups     []Group
}

// Snapshot is everything the audit judges, gathered once the system has
// settled after a scenario.
type Snapshot struct {
	Creates  []Create
	Orders   map[string]Order   // by id: every order of the load's merchants in Redis
	Rows     map[string]Row     // by id: ClickHouse
	Webhooks map[string]Webhook // by id
	Balances []Balance
	Streams  []Stream
	CheckCH  bool  // false when ClickHouse could not be read (the audit then fails)
	CHErr    error // why
}

// Figures is the audit's outcome: counts for the report and the problems
// found, each one sentence. An empty Problems is a pass.
type Figures struct {
	Answered, Failed, Orphans int // creates answered 2xx, not answered 2xx, orders nobody was answered for
	Paid, Webhooks            int // paid orders with a notify URL, of which webhooks acknowledged
	LateWebhooks              int
	Problems                  []string
}

// OK reports whether the audit passed.
func (f Figures) OK() bool { return len(f.Problems) == 0 }

// maxListed bounds the problems listed per rule: one lost order is a
// failure, ten thousand are the same failure.
const maxListed = 5

// Audit judges a snapshot against the promises of RELIABILITY.md.
func Audit(s Snapshot) Figures {
	var f Figures
	answered := f.countCreates(s)
	f.checkOrders(s, answered)
	f.checkClientOrderIDs(s)
	f.checkWebhooks(s)
	f.checkBalances(s)
	f.checkStreams(s)
	return f
}

// problems adds up to maxListed of the findings of one rule, then a count.
func (f *Figures) problems(rule string, found []string) {
	sort.Strings(found)
	for i, p := range found {
		if i == maxListed {
			f.Problems = append(f.Problems, fmt.Sprintf("%s: %d more", rule, len(found)-maxListed))
			return
		}
		f.Problems = append(f.Problems, rule+": "+p)
	}
}

func (f *Figures) countCreates(s Snapshot) map[string]bool {
	answered := map[string]bool{}
	for _, c := range s.Creates {
		if c.PaymentID == "" {
			f.Failed++
			continue
		}
		f.Answered++
		answered[c.PaymentID] = true
	}
	for id := range s.Orders {
		if !answered[id] {
			f.Orphans++
		}
	}
	return answered
}

// checkOrders: every answered create exists in Redis, and exactly once in
// ClickHouse in the state Redis holds.
func (f *Figures) checkOrders(s Snapshot, answered map[string]bool) {
	var lost, projected []string
	for id := range answered {
		o, ok := s.Orders[id]
		if !ok {
			lost = append(lost, id+" answered 2xx, not in Redis")
			continue
		}
		if !s.CheckCH {
			continue
		}
		r, ok := s.Rows[id]
		switch {
		case !ok || r.Rows == 0:
			projected = append(projected, id+" not in ClickHouse")
		case r.Rows > 1:
			projected = append(projected, fmt.Sprintf("%s in ClickHouse %d times", id, r.Rows))
		case r.Status != o.Status || r.Version != o.Version:
			projected = append(projected, fmt.Sprintf("%s in ClickHouse as status %d v%d, Redis status %d v%d",
				id, r.Status, r.Version, o.Status, o.Version))
		}
	}
	if !s.CheckCH {
		f.Problems = append(f.Problems, fmt.Sprintf("clickhouse: could not be read: %v", s.CHErr))
	}
	f.problems("lost", lost)
	f.problems("clickhouse", projected)
}

// checkClientOrderIDs: no (merchant, clientOrderId) has two live orders.
func (f *Figures) checkClientOrderIDs(s Snapshot) {
	live := map[string][]string{}
	for _, o := range s.Orders {
		if o.ClientOrderID != "" && (o.Status == 0 || o.Status == 1) {
			k := o.AppID + "/" + o.ClientOrderID
			live[k] = append(live[k], o.ID)
		}
	}
	var twice []string
	for k, ids := range live {
		if len(ids) > 1 {
			sort.Strings(ids)
			twice = append(twice, k+" live in "+strings.Join(ids, ", "))
		}
	}
	f.problems("clientOrderId", twice)
}

// checkWebhooks: every paid order with a notify URL had a webhook
// acknowledged and recorded, and none arrived after its success was recorded.
func (f *Figures) checkWebhooks(s Snapshot) {
	var missing, late []string
	for id, o := range s.Orders {
		w := s.Webhooks[id]
		if w.AfterSuccess > 0 {
			f.LateWebhooks += w.AfterSuccess
			late = append(late, fmt.Sprintf("%s delivered %d time(s) after its recorded success", id, w.AfterSuccess))
		}
		if o.Status != 2 || o.NotifyURL == "" {
			continue
		}
		f.Paid++
		switch {
		case w.Acked == 0:
			missing = append(missing, id+" paid, no webhook acknowledged (state "+w.State+")")
		case w.State != "delivered":
			missing = append(missing, id+" acknowledged, recorded as "+w.State)
		default:
			f.Webhooks++
		}
	}
	f.problems("webhook", missing)
	f.problems("webhook after success", late)
}

// checkBalances: no balance negative, and each moved by exactly the
// balance payments its orders record.
func (f *Figures) checkBalances(s Snapshot) {
	var bad []string
	for _, b := range s.Balances {
		if b.End < 0 {
			bad = append(bad, fmt.Sprintf("%s is negative: %d", b.Who, b.End))
		}
		if got := (b.End - b.Start) * b.Sign; got != b.Moved {
			bad = append(bad, fmt.Sprintf("%s moved %d, its balance payments sum to %d", b.Who, got, b.Moved))
		}
	}
	f.problems("balance", bad)
}

// checkStreams: no stream lost an entry a group had not acknowledged: the
// highest id ever removed is below every group's oldest pending entry and
// not above its last delivered one (entries after it are undelivered).
func (f *Figures) checkStreams(s Snapshot) {
	var bad []string
	for _, st := range s.Streams {
		for _, g := range st.Groups {
			need := g.LastDelivered
			if g.PendingLower != "" {
				need = g.PendingLower
				if !lessID(st.MaxDeleted, need) {
					bad = append(bad, fmt.Sprintf("%s trimmed to %s, group %s still has %s pending", st.Key, st.MaxDeleted, g.Name, need))
				}
				continue
			}
			if lessID(need, st.MaxDeleted) {
				bad = append(bad, fmt.Sprintf("%s trimmed to %s, group %s had read only to %s", st.Key, st.MaxDeleted, g.Name, need))
			}
		}
	}
	f.problems("stream", bad)
}

// lessID orders stream ids ("ms-seq") numerically; a malformed id sorts first.
func lessID(a, b string) bool {
	am, as := splitID(a)
	bm, bs := splitID(b)
	if am != bm {
		return am < bm
	}
	return as < bs
}

func splitID(id string) (ms, seq uint64) {
	l, r, _ := strings.Cut(id, "-")
	ms, _ = strconv.ParseUint(l, 10, 64)
	seq, _ = strconv.ParseUint(r, 10, 64)
	return ms, seq
}
