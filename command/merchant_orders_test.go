package command

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// consoleFakes are MerchantOrders' collaborators, recording what was asked.
type consoleFakes struct {
	orders  map[string]*schema.Order
	calls   []string
	entries []audit.Entry
	fail    error // what every act answers when set
}

func (f *consoleFakes) Get(_ context.Context, id string) (*schema.Order, error) {
	if o, ok := f.orders[id]; ok {
		cp := *o
		return &cp, nil
	}
	return nil, orderNotFound(id)
}

func (f *consoleFakes) act(name string, o *schema.Order, to schema.Status) (*schema.Order, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	f.calls = append(f.calls, name+" "+o.ID)
	cp := *o
	cp.Status = to
	return &cp, nil
}

func (f *consoleFakes) Refund(_ context.Context, o *schema.Order, ask RefundAsk) (*schema.Refund, error) {
	if _, err := f.act("refund", o, o.Status); err != nil {
		return nil, err
	}
	return &schema.Refund{Amount: ask.Amount, Status: "succeeded"}, nil
}

func (f *consoleFakes) Cancel(ctx context.Context, id string) (*schema.Order, error) {
	o, _ := f.Get(ctx, id)
	return f.act("cancel", o, schema.StatusCancelled)
}

func (f *consoleFakes) SandboxMove(_ context.Context, o *schema.Order, to schema.Status) (*schema.Order, error) {
	return f.act("sandbox", o, to)
}

func (f *consoleFakes) Append(_ context.Context, e audit.Entry) (string, error) {
	f.entries = append(f.entries, e)
	return "1-0", nil
}

// TestMerchantOrdersCheckOwnershipAndAudit: each console action on
// another merchant's order, with an entry the log cannot keep, or whose
// change fails, does nothing and leaves no entry; a good one acts once and
// leaves one entry with its outcome.
func TestMerchantOrdersCheckOwnershipAndAudit(t *testing.T) {
	now := time.Now()
	mine := schema.NewOrderID(now, 3)
	theirs := schema.NewOrderID(now, 3)
	owner := access.Actor{ID: "u1", Email: "owner@shop.test", Realm: audit.RealmMerchant, Role: access.RoleOwner, AppID: "1001", Source: "192.0.2.1"}
	viewer := owner
	viewer.Role = access.RoleViewer
	operatorAdmin := owner
	operatorAdmin.Realm, operatorAdmin.Role = audit.RealmOperator, access.RoleAdmin
	badSource := owner
	badSource.Source = strings.Repeat("1", 300)
	actions := map[string]func(m *MerchantOrders, by access.Actor, id string) error{
		"order.refund": func(m *MerchantOrders, by access.Actor, id string) error {
			_, err := m.Refund(context.Background(), by, id, 0, "wrong size")
			return err
		},
		"order.cancel": func(m *MerchantOrders, by access.Actor, id string) error {
			_, err := m.Cancel(context.Background(), by, id)
			return err
		},
		"order.sandbox_paid": func(m *MerchantOrders, by access.Actor, id string) error {
			_, err := m.SandboxMove(context.Background(), by, id, schema.StatusPaid)
			return err
		},
	}
	for action, do := range actions {
		for _, tc := range []struct {
			name string
			by   access.Actor
			id   string
			fail error
			kind platform.Kind // "": done
		}{
			{"a viewer", viewer, mine, nil, platform.KindForbidden},
			{"an operator (another realm)", operatorAdmin, mine, nil, platform.KindForbidden},
			{"nobody", access.Actor{}, mine, nil, platform.KindForbidden},
			{"another merchant's order", owner, theirs, nil, platform.KindNotFound},
			{"a missing order", owner, schema.NewOrderID(now, 3), nil, platform.KindNotFound},
			{"an entry the log cannot keep", badSource, mine, nil, platform.KindInvalidParameter},
			{"a change that fails", owner, mine, platform.Errorf(platform.KindConflict, "no"), platform.KindConflict},
			{"its own", owner, mine, nil, ""},
		} {
			t.Run(action+" "+tc.name, func(t *testing.T) {
				f := &consoleFakes{fail: tc.fail, orders: map[string]*schema.Order{
					mine:   {ID: mine, AppID: "1001", Amount: 1000, Currency: "CNY", Status: schema.StatusReady, Sandbox: true},
					theirs: {ID: theirs, AppID: "1002", Amount: 1000, Currency: "CNY", Status: schema.StatusReady, Sandbox: true}}}
				err := do(NewMerchantOrders(f, f, f, nil), tc.by, tc.id)
				if tc.kind != "" {
					if platform.KindOf(err) != tc.kind || len(f.calls) != 0 || len(f.entries) != 0 {
						t.Fatalf("%v (kind %q), %d calls, %d entries: want %q, nothing done", err, platform.KindOf(err), len(f.calls), len(f.entries), tc.kind)
					}
					return
				}
				if err != nil || len(f.calls) != 1 || len(f.entries) != 1 {
					t.Fatalf("%v, calls %v, %d entries", err, f.calls, len(f.entries))
				}
				if e := f.entries[0]; e.Action != action || e.Target != "order:"+mine || e.AppID != "1001" || e.Details["status"] == "" {
					t.Fatalf("entry %+v", e)
				}
			})
		}
	}
	if _, err := NewMerchantOrders(&consoleFakes{}, &consoleFakes{}, &consoleFakes{}, nil).Refund(context.Background(), owner, mine, 0, ""); platform.KindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("a refund without a reason: %v", err)
	}
}
