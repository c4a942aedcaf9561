package console

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/redis/go-redis/v9"
)

// store is the tests' read models and command side in one: orders in a
// map, listed and summed in Go. The console reads and acts through the
// same interfaces the gateway binds to Redis, ClickHouse and command/.
type store struct {
	mu      sync.Mutex
	orders  map[string]*schema.Order
	refunds map[string][]schema.Refund
	notes   map[string][]schema.NotificationRecord
	hooks   map[string][]schema.WebhookAttempt
	calls   []string // the actions the command side was asked for
	// resends is the real resend over the test's Redis, where the paid
	// orders have their deliveries: it checks the merchant and writes the
	// audit entry itself.
	resends *dispatcher.Webhooks
	rdb     redis.UniversalClient
}

func newStore(rdb redis.UniversalClient) *store {
	return &store{resends: dispatcher.NewWebhooks(rdb), rdb: rdb, orders: map[string]*schema.Order{}, refunds: map[string][]schema.Refund{},
		notes: map[string][]schema.NotificationRecord{}, hooks: map[string][]schema.WebhookAttempt{}}
}

func (s *store) add(o *schema.Order) {
	if o.Status == schema.StatusPaid {
		// Its delivery, as the dispatcher leaves it once acknowledged.
		shard, _ := schema.ParseOrderID(o.ID)
		s.rdb.HSet(context.Background(), schema.WebhookKey(shard, o.ID), "st", "delivered", "appid", o.AppID, "host", "127.0.0.1:9")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := *o
	s.orders[o.ID] = &cp
}

func (s *store) get(id string) schema.Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.orders[id]
}

func (s *store) called() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *store) Order(_ context.Context, id string) (*schema.Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return nil, query.ErrNotFound
	}
	cp := *o
	return &cp, nil
}

func (s *store) match(f query.Filter) []schema.Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []schema.Order
	for _, o := range s.orders {
		if o.AppID != f.AppID || (f.Status != nil && o.Status != *f.Status) || (f.Method != "" && o.Method != f.Method) ||
			(f.Currency != "" && o.Currency != f.Currency) || (f.ClientOrderID != "" && o.ClientOrderID != f.ClientOrderID) ||
			(f.CustomerEmail != "" && o.CustomerEmail != f.CustomerEmail) || (!f.From.IsZero() && o.CreatedAt.Before(f.From)) ||
			(!f.To.IsZero() && !o.CreatedAt.Before(f.To)) || !f.Refunded.Match(o) {
			continue
		}
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b schema.Order) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out
}

func (s *store) Page(_ context.Context, f query.Filter) ([]schema.Order, error) {
	all := s.match(f)
	lo := min(len(all), (f.Page-1)*f.Limit)
	return all[lo:min(len(all), lo+f.Limit)], nil
}

func (s *store) Count(_ context.Context, f query.Filter) (int, error) { return len(s.match(f)), nil }

func (s *store) reportOrders(f query.ReportFilter) []schema.Order {
	return s.match(query.Filter{AppID: f.AppID, From: f.From, To: f.To, Status: f.Status, Method: f.Method, Currency: f.Currency, ClientOrderID: f.ClientOrderID, Refunded: f.Refunded})
}

func (s *store) Summary(_ context.Context, f query.ReportFilter) (query.Summary, error) {
	var sum query.Summary
	paid := map[string]int64{}
	by := map[string]*query.MethodFigures{}
	for _, o := range s.reportOrders(f) {
		sum.Created++
		m := by[string(o.Method)]
		if m == nil {
			m = &query.MethodFigures{PaymentMethod: string(o.Method)}
			by[string(o.Method)] = m
		}
		m.Created++
		if o.Status == schema.StatusPaid {
			sum.Paid++
			m.Paid++
			paid[o.Currency] += int64(o.Amount)
		}
	}
	if sum.Created > 0 {
		sum.Conversion = float64(sum.Paid) / float64(sum.Created)
	}
	sum.PaidAmount = map[string]string{}
	for cur, a := range paid {
		sum.PaidAmount[cur] = schema.Amount(a).String()
	}
	for _, m := range by {
		m.Conversion = float64(m.Paid) / float64(m.Created)
		sum.ByMethod = append(sum.ByMethod, *m)
	}
	slices.SortFunc(sum.ByMethod, func(a, b query.MethodFigures) int { return b.Created - a.Created })
	return sum, nil
}

func (s *store) Series(_ context.Context, f query.ReportFilter, spec query.SeriesSpec) ([]query.SeriesRow, error) {
	var rows []query.SeriesRow
	for _, o := range s.reportOrders(f) {
		key := o.CreatedAt.UTC().Format("2006-01-02")
		if spec.Interval == "hour" {
			key = o.CreatedAt.UTC().Format("2006-01-02T15")
		}
		r := query.SeriesRow{Bucket: key, Group: o.Currency, Currency: o.Currency, Count: 1}
		if o.Status == schema.StatusPaid {
			r.Paid, r.PaidAmount = 1, int64(o.Amount)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func (s *store) Export(_ context.Context, f query.ReportFilter) ([]schema.Order, query.ExportRest, error) {
	all := s.reportOrders(f)
	return all, func(func(*schema.Order) error) error { return nil }, nil
}

func (s *store) Attempts(_ context.Context, id, refundID string) ([]schema.WebhookAttempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hooks[id+"/"+refundID]), nil
}

func (s *store) Delivery(_ context.Context, id, refundID string) (*schema.WebhookState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hooks[id+"/"+refundID]) == 0 {
		return nil, nil
	}
	return &schema.WebhookState{State: "delivered", Automatic: len(s.hooks[id+"/"+refundID])}, nil
}

func (s *store) Refunds(_ context.Context, id string) ([]schema.Refund, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refunds[id]), nil
}

func (s *store) Notifications(_ context.Context, id string) ([]schema.NotificationRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes[id]), nil
}

// The command side.

func (s *store) Refund(_ context.Context, o *schema.Order, ask command.RefundAsk) (*schema.Refund, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "refund "+o.ID+" "+ask.Amount.String())
	cur := s.orders[o.ID]
	if cur.RefundReserved+ask.Amount > cur.Amount {
		return nil, platform.Errorf(platform.KindRefundExceeded, "the refund exceeds what is left")
	}
	cur.RefundReserved += ask.Amount
	cur.Refunded += ask.Amount
	r := schema.Refund{ID: "rf" + o.ID[len(o.ID)-6:], OrderID: o.ID, Amount: ask.Amount, Currency: o.Currency, Reason: ask.Reason,
		Status: schema.RefundSucceeded, CreatedMs: time.Now().UnixMilli()}
	s.refunds[o.ID] = append(s.refunds[o.ID], r)
	return &r, nil
}

func (s *store) Cancel(_ context.Context, id string) (*schema.Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "cancel "+id)
	o := s.orders[id]
	if !o.Status.Live() {
		return nil, platform.Errorf(platform.KindConflict, "order %s is %s", id, o.Status)
	}
	o.Status = schema.StatusCancelled
	cp := *o
	return &cp, nil
}

func (s *store) Resend(ctx context.Context, by access.Actor, id, refundID string) error {
	if err := s.resends.Resend(ctx, dispatcher.ResendAsk{PaymentID: id, RefundID: refundID, By: &by}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "resend "+id)
	return nil
}

func (s *store) SandboxMove(_ context.Context, o *schema.Order, to schema.Status) (*schema.Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "sandbox "+o.ID+" "+to.String())
	cur := s.orders[o.ID]
	cur.Status = to
	if to == schema.StatusPaid {
		cur.CompletedAt = time.Now().UTC()
	}
	cp := *cur
	return &cp, nil
}

// testActions are the order page's use cases as the gateway binds them:
// the real command.MerchantOrders over this fake command side, and the
// real resend (store.Resend).
type testActions struct {
	*command.MerchantOrders
	s *store
}

func (a testActions) Resend(ctx context.Context, by access.Actor, id, refundID string) error {
	return a.s.Resend(ctx, by, id, refundID)
}

// Get is the live order as command.Store reads it: a missing one is
// KindNotFound.
func (s *store) Get(ctx context.Context, id string) (*schema.Order, error) {
	o, err := s.Order(ctx, id)
	if err != nil {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	return o, nil
}
