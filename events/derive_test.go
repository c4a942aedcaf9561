package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

const base = "https://pay.example"

var (
	at  = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	oid = schema.NewOrderID(at, 3)
)

func order(mut func(*schema.Order)) schema.Order {
	o := schema.Order{ID: oid, AppID: "1001", Amount: 10050, Currency: "USD",
		Method: schema.MethodUSDTDirect, Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: 2}
	if mut != nil {
		mut(&o)
	}
	return o
}

// entry is a stream entry as the scripts write it, read back as the
// fan-out reads it.
func entry(t *testing.T, typ schema.EventType, o schema.Order, extra ...any) schema.Event {
	t.Helper()
	f := append(schema.EventFields(typ, at, &o), extra...)
	m := map[string]any{}
	for i := 0; i < len(f); i += 2 {
		m[fmt.Sprint(f[i])] = fmt.Sprint(f[i+1])
	}
	ev, err := schema.DecodeEvent("1-0", m)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func refund(id string, st schema.RefundStatus) string {
	r := schema.Refund{ID: id, OrderID: "x", Amount: 2000, Currency: "USD", Status: st, Kind: schema.RefundKindProvider,
		CreatedMs: at.UnixMilli(), UpdatedMs: at.UnixMilli()}
	b, _ := json.Marshal(r)
	return string(b)
}

func types(ds []Derived) string {
	var s []string
	for _, d := range ds {
		s = append(s, string(d.Event.Type))
	}
	return strings.Join(s, ",")
}

// TestFromOrder: each entry of an order stream and the events it means.
func TestFromOrder(t *testing.T) {
	paid := order(func(o *schema.Order) { o.Status, o.CompletedAt, o.Version = schema.StatusPaid, at, 3 })
	tests := []struct {
		name  string
		typ   schema.EventType
		o     schema.Order
		extra []any
		want  string
	}{
		{"created", schema.EventCreated, order(nil), nil, ""},
		{"ready", schema.EventReady, order(nil), nil, ""},
		{"paid", schema.EventPaid, paid, nil, "order.paid"},
		{"paid late after it expired", schema.EventPaid, order(func(o *schema.Order) { o.Status, o.Expired = schema.StatusPaid, true }),
			[]any{schema.EvUSDT, schema.USDTLate}, "order.paid,usdt.late"},
		{"failed", schema.EventFailed, order(func(o *schema.Order) { o.Status = schema.StatusFailed }), nil, "order.failed"},
		{"cancelled by its payer or merchant", schema.EventCancelled, order(func(o *schema.Order) { o.Status = schema.StatusCancelled }), nil, "order.cancelled"},
		{"expired", schema.EventCancelled, order(func(o *schema.Order) { o.Status, o.Expired = schema.StatusCancelled, true }), nil, "order.expired"},
		{"a transfer short of the amount", schema.EventChanged, order(nil), []any{schema.EvUSDT, schema.USDTUnderpaid}, "usdt.underpaid"},
		{"a transfer above the amount", schema.EventChanged, order(nil), []any{schema.EvUSDT, schema.USDTOverpaid}, "usdt.overpaid"},
		{"another change", schema.EventChanged, order(func(o *schema.Order) { o.Review = "rejected" }), nil, ""},
		{"a refund asked for", schema.EventRefund, paid, []any{schema.EvRefund, refund("rf_1", schema.RefundPending)}, ""},
		{"a refund succeeded", schema.EventRefund, paid, []any{schema.EvRefund, refund("rf_1", schema.RefundSucceeded)}, "order.refunded"},
		{"a refund failed", schema.EventRefund, paid, []any{schema.EvRefund, refund("rf_1", schema.RefundFailed)}, "refund.failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := FromOrder(entry(t, tt.typ, tt.o, tt.extra...), base)
			if err != nil {
				t.Fatal(err)
			}
			if got := types(ds); got != tt.want {
				t.Fatalf("derived %q, want %q", got, tt.want)
			}
			for _, d := range ds {
				if d.AppID != "1001" || d.Object != "order:"+tt.o.ID || !d.Event.Created.Equal(at) || d.Event.Version != Version {
					t.Fatalf("derived %+v", d)
				}
				var data struct {
					PaymentID string           `json:"paymentId"`
					Order     schema.OrderView `json:"order"`
				}
				if err := json.Unmarshal(d.Event.Data, &data); err != nil || data.PaymentID == "" {
					t.Fatalf("data %s: %v", d.Event.Data, err)
				}
				if strings.HasPrefix(string(d.Event.Type), "order.refunded") && data.Order.PaymentID != tt.o.ID {
					t.Fatalf("a refund's data without its order: %s", d.Event.Data)
				}
			}
		})
	}
}

func one(t *testing.T, ev schema.Event) Event {
	t.Helper()
	ds, err := FromOrder(ev, base)
	if err != nil || len(ds) != 1 {
		t.Fatalf("derived %v, %v: want one event", ds, err)
	}
	return ds[0].Event
}

// TestEventIDs: an entry derived twice is the same event (the same
// webhook-id); different happenings are different events.
func TestEventIDs(t *testing.T) {
	paid := order(func(o *schema.Order) { o.Status, o.Version, o.Refunded = schema.StatusPaid, 3, 2000 })
	rf := func(id string) schema.Event {
		return entry(t, schema.EventRefund, paid, schema.EvRefund, refund(id, schema.RefundSucceeded))
	}
	short := func(v int64) schema.Event {
		return entry(t, schema.EventChanged, order(func(o *schema.Order) { o.Version = v }), schema.EvUSDT, schema.USDTUnderpaid)
	}
	cancelled := order(func(o *schema.Order) { o.Status = schema.StatusCancelled })
	expired := order(func(o *schema.Order) { o.Status, o.Expired = schema.StatusCancelled, true })
	tests := []struct {
		name string
		a, b schema.Event
		same bool
	}{
		{"the same paid entry twice", entry(t, schema.EventPaid, paid), entry(t, schema.EventPaid, paid), true},
		{"the same refund entry twice", rf("rf_1"), rf("rf_1"), true},
		{"two partial refunds", rf("rf_1"), rf("rf_2"), false},
		{"two short transfers", short(4), short(6), false},
		{"the same short transfer twice", short(4), short(4), true},
		{"cancelled and expired", entry(t, schema.EventCancelled, cancelled), entry(t, schema.EventCancelled, expired), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := one(t, tt.a), one(t, tt.b)
			if (a.ID == b.ID) != tt.same || !strings.HasPrefix(a.ID, "evt_") {
				t.Fatalf("ids %s and %s: want same=%v", a.ID, b.ID, tt.same)
			}
			if tt.same {
				ab, _ := a.Body()
				bb, _ := b.Body()
				if string(ab) != string(bb) {
					t.Fatalf("bodies differ:\n%s\n%s", ab, bb)
				}
			}
		})
	}
}

// TestRefundData: order.refunded carries the refund and its order, whose
// refundedAmount says how much in all.
func TestRefundData(t *testing.T) {
	paid := order(func(o *schema.Order) { o.Status, o.Refunded = schema.StatusPaid, 4000 })
	e := one(t, entry(t, schema.EventRefund, paid, schema.EvRefund, refund("rf_9", schema.RefundSucceeded)))
	var d RefundData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.RefundID != "rf_9" || d.Amount != "20.00" || d.Status != "succeeded" || d.Order.RefundedAmount != "40.00" ||
		d.Order.PaymentID != paid.ID {
		t.Fatalf("data %s", e.Data)
	}
}
