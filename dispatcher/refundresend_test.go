package dispatcher

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// refundEnded publishes the end of refund id of o, which schedules its
// webhook.
func (e *env) refundEnded(o *schema.Order, id string) {
	e.t.Helper()
	now := time.Now().UnixMilli()
	o.Version++
	o.Refunded += 1_00
	e.publishRefund(o, &schema.Refund{ID: id, OrderID: o.ID, Amount: 1_00, Currency: o.Currency,
		Status: schema.RefundSucceeded, Kind: schema.RefundKindProvider, CreatedMs: now, UpdatedMs: now})
}

// sameShardOrder is a paid order of the env's merchant on o's shard, so
// its refunds' deliveries sit under the same key layout as o's.
func (e *env) sameShardOrder(o *schema.Order, notify string) *schema.Order {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	n := e.paidOrder(notify)
	n.ID = schema.NewOrderID(n.CreatedAt, shard)
	for n.ID == o.ID {
		n.ID = schema.NewOrderID(n.CreatedAt, shard)
	}
	return n
}

// TestResendRefundWebhook: refundId picks a refund's webhook for the resend
// API and the operator's calls; a refund of another order, even on the same
// shard, an unknown refund id, one that is no refund id, another merchant's
// and a refundId outside the signature are refused like a missing order,
// and make no attempt.
func TestResendRefundWebhook(t *testing.T) {
	e := newEnv(t)
	other, err := e.accounts.Create(context.Background(), merchant.NewAccount{Name: "other shop"})
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, answer(200, "success"))
	d := e.start(testConfig())
	o := e.pay(rc.URL + "/hook")
	neighbour := e.sameShardOrder(o, rc.URL+"/hook")
	e.publish(neighbour, schema.EventPaid)
	e.refundEnded(o, "rf_MINE")
	e.refundEnded(neighbour, "rf_THEIRS")
	testenv.Eventually(t, 10*time.Second, "four webhooks", func() bool { return rc.count() == 4 })
	for _, ids := range [][2]string{{o.ID, "rf_MINE"}, {neighbour.ID, "rf_THEIRS"}} {
		testenv.Eventually(t, 10*time.Second, "refund delivered", func() bool {
			st, err := d.RefundState(context.Background(), ids[0], ids[1])
			return err == nil && st.State == StateDelivered && st.RefundID == ids[1]
		})
	}
	call := e.resendApp()
	key := e.acct.APIKey
	unsigned := signed(t, e.acct.AppID, key, o.ID, nil)
	unsigned = strings.Replace(unsigned, `"action"`, `"refundId":"rf_MINE","action"`, 1)

	tests := []struct {
		name   string
		body   string
		status int
		kind   string
	}{
		{"refund of another order on the same shard", signed(t, e.acct.AppID, key, o.ID, map[string]string{"refundId": "rf_THEIRS"}), 404, "order_not_found"},
		{"unknown refund", signed(t, e.acct.AppID, key, o.ID, map[string]string{"refundId": "rf_NOPE"}), 404, "order_not_found"},
		{"not a refund id", signed(t, e.acct.AppID, key, o.ID, map[string]string{"refundId": o.ID}), 404, "order_not_found"},
		{"another merchant", signed(t, other.AppID, other.APIKey, o.ID, map[string]string{"refundId": "rf_MINE"}), 404, "order_not_found"},
		{"refundId outside the sign", unsigned, 401, "invalid_sign"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := call(tt.body)
			if status != tt.status || out["error"] != tt.kind {
				t.Fatalf("%d %v, want %d %s", status, out, tt.status, tt.kind)
			}
		})
	}
	if n := rc.count(); n != 4 {
		t.Fatalf("refused resends made attempts: %d requests", n)
	}

	status, out := call(signed(t, e.acct.AppID, key, o.ID, map[string]string{"refundId": "rf_MINE"}))
	data, _ := out["data"].(map[string]any)
	if status != 200 || data["eventId"] != "evt_refund_rf_MINE" || data["refundId"] != "rf_MINE" || data["paymentId"] != o.ID {
		t.Fatalf("resend: %d %v", status, out)
	}
	testenv.Eventually(t, 10*time.Second, "the manual attempt", func() bool { return rc.count() == 5 })
	if got := rc.requests()[4]; got.form.Get("refundId") != "rf_MINE" || got.header.Get(HeaderID) != "evt_refund_rf_MINE" {
		t.Fatalf("resent %v %q, want the refund's webhook", got.form, got.header.Get(HeaderID))
	}
	testenv.Eventually(t, 10*time.Second, "recorded", func() bool {
		log, err := d.RefundLog(context.Background(), o.ID, "rf_MINE")
		return err == nil && len(log) == 2 && log[1].Manual && log[1].Success
	})
	if log, _ := d.Log(context.Background(), o.ID); len(log) != 1 {
		t.Errorf("the paid webhook's log has %d attempts, want 1: the resend went to the wrong delivery", len(log))
	}

	// The operator's calls check the pair the same way.
	if _, err := d.RefundState(context.Background(), o.ID, "rf_THEIRS"); !errors.Is(err, ErrNoDelivery) {
		t.Errorf("state of another order's refund: %v", err)
	}
	if _, err := d.RefundLog(context.Background(), o.ID, "rf_THEIRS"); !errors.Is(err, ErrNoDelivery) {
		t.Errorf("log of another order's refund: %v", err)
	}
	if err := d.operatorResend(context.Background(), o.ID, "rf_THEIRS"); !errors.Is(err, ErrNoDelivery) {
		t.Errorf("resend of another order's refund: %v", err)
	}
	if err := d.operatorResend(context.Background(), neighbour.ID, "rf_THEIRS"); err != nil {
		t.Errorf("operator resend of a refund: %v", err)
	}
	testenv.Eventually(t, 10*time.Second, "the operator's attempt", func() bool { return rc.count() == 6 })
}
