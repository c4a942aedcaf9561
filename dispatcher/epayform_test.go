package dispatcher

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// getReceiver records each request's method and query, and answers "fail"
// first and "success" after, so the schedule's retry is seen.
type getReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newGetReceiver(t *testing.T) *getReceiver {
	rc := &getReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, r.Clone(r.Context()))
		n := len(rc.reqs)
		rc.mu.Unlock()
		if n == 1 {
			_, _ = w.Write([]byte("fail"))
			return
		}
		_, _ = w.Write([]byte("success"))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *getReceiver) all() []*http.Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*http.Request(nil), rc.reqs...)
}

// TestEpayNotification: an order of the epay door is notified by a signed
// GET in that protocol's form (the type word of the method the payer chose,
// notify_url's own query kept), retried on the schedule until "success",
// then delivered; its refund sends nothing; a SPEC.md order beside it is
// still the POST form.
func TestEpayNotification(t *testing.T) {
	e := newEnv(t)
	rc := newGetReceiver(t)
	spec := newReceiver(t, answer(200, "success"))
	types, err := epay.ParseTypes("t1=wallet_a,t2=wallet_b")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.EpayTypes = epay.Static(types)
	d := e.start(cfg)

	o := e.paidOrder(rc.URL + "/n?shop=1")
	o.Door, o.Method, o.Currency, o.ClientOrderID, o.Description, o.DoorParam = schema.DoorEpay, schema.MethodWalletB, "CNY", "E-9", "Box & co", "x=1&y"
	e.publish(o, schema.EventPaid)
	e.pay(spec.URL + "/hook")

	testenv.Eventually(t, 10*time.Second, "two attempts of the epay notification", func() bool { return len(rc.all()) == 2 })
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.state(d, o.ID) == StateDelivered })
	for _, r := range rc.all() {
		q := r.URL.Query()
		if r.Method != http.MethodGet || q.Get("shop") != "1" {
			t.Fatalf("%s %s, want a GET keeping shop=1", r.Method, r.URL)
		}
		q.Del("shop")
		p := epay.Params{}
		for k := range q {
			p[k] = q.Get(k)
		}
		want := epay.Params{"pid": e.acct.AppID, "trade_no": o.ID, "out_trade_no": "E-9", "type": "t2", "name": "Box & co",
			"money": "12.34", "trade_status": "TRADE_SUCCESS", "param": "x=1&y", "sign_type": "MD5", "sign": p["sign"]}
		if len(p) != len(want) || !epay.Verify(p, e.acct.APIKey) {
			t.Fatalf("notification %v does not verify or differs from %v", p, want)
		}
		for k, v := range want {
			if p[k] != v {
				t.Fatalf("%s=%q, want %q", k, p[k], v)
			}
		}
	}
	testenv.Eventually(t, 10*time.Second, "the SPEC.md webhook", func() bool { return spec.count() == 1 })
	if got := spec.requests()[0]; got.contentType != formType || got.form.Get("paymentId") == "" {
		t.Fatalf("SPEC.md webhook %+v", got)
	}

	// The refund, then a SPEC.md order on the same shard: once that one is
	// delivered, the refund's entry was handled before it and sent nothing.
	now := time.Now().UnixMilli()
	e.publishRefund(o, &schema.Refund{ID: "rf_epay", OrderID: o.ID, Amount: 1_00, Currency: "CNY",
		Status: schema.RefundSucceeded, Kind: schema.RefundKindProvider, CreatedMs: now, UpdatedMs: now})
	shard, _ := schema.ParseOrderID(o.ID)
	after := e.paidOrder(spec.URL + "/hook")
	after.ID = schema.NewOrderID(after.CreatedAt, shard)
	e.publish(after, schema.EventPaid)
	testenv.Eventually(t, 10*time.Second, "the later SPEC.md webhook", func() bool { return spec.count() == 2 })
	if n := len(rc.all()); n != 2 {
		t.Fatalf("the epay receiver got %d requests, want the paid notification's 2 only", n)
	}
}
