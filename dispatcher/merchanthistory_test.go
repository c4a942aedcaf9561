package dispatcher

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestMerchantDeliveriesHistory: the listing holds every delivery,
// delivered ones too, each with the body we sent and its attempts; the
// delivered filter keeps those alone; a search by payment id or
// clientOrderId finds that order's deliveries and nothing of another
// merchant's order.
func TestMerchantDeliveriesHistory(t *testing.T) {
	e := newDeskEnv(t)
	ctx := context.Background()
	now := time.Now()
	delivered := e.scheduleFor(e.acct.AppID, 4, now.Add(-time.Minute))
	dead := e.scheduleFor(e.acct.AppID, 5, now)
	theirs := e.scheduleFor(e.other.AppID, 4, now)
	e.settle(map[string]outcome{delivered: deskOK, dead: deskFail("connection refused"), theirs: deskOK})
	e.rdb.HSet(ctx, schema.ClientOrdersKey(4, e.acct.AppID), "shop-42", schema.PackOrderID(delivered))
	// A refund of the delivered order, its webhook pending: found with its order.
	refund := schema.NewRefundID("history1")
	if added, errs := e.s.addAll(ctx, []delivery{{shard: 4, id: refund, url: hostA, appid: e.acct.AppID,
		params: schema.Params{"paymentId": delivered, "refundId": refund}, paid: now.Add(-30 * time.Second)}}); errs[0] != nil || !added[0] {
		t.Fatalf("schedule the refund's webhook: %v", errs[0])
	}
	e.rdb.HSet(ctx, schema.RefundsKey(4, delivered), refund, "{}")
	e.rdb.HSet(ctx, schema.ClientOrdersKey(4, e.other.AppID), "their-7", schema.PackOrderID(theirs))

	all := e.list(e.acct.AppID, ListFilter{})
	got, ok := all[delivered]
	if len(all) != 3 || !ok || got.State != ViewDelivered || all[refund].PaymentID != delivered {
		t.Fatalf("every delivery: %v", all)
	}
	sent, err := url.ParseQuery(got.Sent)
	if err != nil || sent.Get("paymentId") != delivered || sent.Get("sign") != "" {
		t.Fatalf("the body sent %q, want the form with paymentId and without a sign", got.Sent)
	}
	if len(got.Attempts) != 1 || !got.Attempts[0].Success || got.Attempts[0].At == "" {
		t.Fatalf("attempts %+v, want the one acknowledged with its time", got.Attempts)
	}
	for _, tt := range []struct {
		name string
		f    ListFilter
		want []string
	}{
		{"delivered only", ListFilter{State: ViewDelivered}, []string{delivered}},
		{"dead only", ListFilter{State: ViewDead}, []string{dead}},
		{"by payment id", ListFilter{Query: dead}, []string{dead}},
		{"by payment id, with its refund", ListFilter{Query: delivered}, []string{delivered, refund}},
		{"by clientOrderId", ListFilter{Query: " shop-42 "}, []string{delivered, refund}},
		{"by clientOrderId and state", ListFilter{Query: "shop-42", State: ViewPending}, []string{refund}},
		{"by payment id and a state it is not in", ListFilter{Query: dead, State: ViewDelivered}, nil},
		{"another merchant's payment id", ListFilter{Query: theirs}, nil},
		{"another merchant's clientOrderId", ListFilter{Query: "their-7"}, nil},
		{"nothing known", ListFilter{Query: "nope"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := e.list(e.acct.AppID, tt.f)
			if len(rows) != len(tt.want) {
				t.Fatalf("rows %v, want %v", rows, tt.want)
			}
			for _, id := range tt.want {
				if _, ok := rows[id]; !ok {
					t.Fatalf("rows %v, want %v", rows, tt.want)
				}
			}
		})
	}
}

// TestTestResultReadsAsAnAttempt: a test event's answer is said by the
// same outcome as a real attempt's.
func TestTestResultReadsAsAnAttempt(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    TestResult
		want string
	}{
		{"acknowledged", TestResult{Status: 200, Acknowledged: true, Body: "success"}, schema.OutcomeDelivered},
		{"refused", TestResult{Error: "connection refused"}, schema.OutcomeRefused},
		{"answered 500", TestResult{Status: 500, Error: "HTTP 500"}, schema.OutcomeStatus},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Attempt().Outcome().Kind; got != tt.want {
				t.Fatalf("outcome %s, want %s", got, tt.want)
			}
		})
	}
}
