package command

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// notify posts a fake-family notification for the order, signed unless
// forged, to the sandbox or live prefix.
func (h *harness) notify(prefix string, n fakeNote, forged bool) *response {
	h.t.Helper()
	body, _ := json.Marshal(n)
	req := httptest.NewRequest(http.MethodPost, prefix+"/gatewaynotification/wallet_a/notify", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	sig := fakeSign(body)
	if forged {
		sig = fakeSign([]byte("something else"))
	}
	req.Header.Set("X-Fake-Sig", sig)
	return h.do(req)
}

func (h *harness) records(id string) []schema.NotificationRecord {
	h.t.Helper()
	shard, _ := schema.ParseOrderID(id)
	raw, err := h.rdb.LRange(context.Background(), schema.NotificationsKey(shard, id), 0, -1).Result()
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]schema.NotificationRecord, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			h.t.Fatal(err)
		}
	}
	return out
}

// TestNotifications runs each case on a fresh wallet_a sandbox order of
// 100.00 CNY: what the provider says, what we answer, the order's status
// after, and the verdict kept on the order (or on the refused list).
func TestNotifications(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	type step struct {
		note   fakeNote // Order "" means the case's order
		prefix string   // "/sandbox" unless set
		forged bool
	}
	paid := fakeNote{Outcome: "paid", Amount: "100.00", Currency: "CNY"}
	tests := []struct {
		name        string
		steps       []step
		wantStatus  int // of the last answer
		wantOrder   schema.Status
		wantVerdict string // of the last record
	}{
		{"paid in full", []step{{note: paid}}, 200, schema.StatusPaid, schema.VerdictApplied},
		{"replayed", []step{{note: paid}, {note: paid}}, 200, schema.StatusPaid, schema.VerdictNoChange},
		// Nothing a forged notification says is kept on the order it names:
		// it goes to the refused list (TestNotificationsRefusedWithoutAnOrder).
		{"forged signature", []step{{note: paid, forged: true}}, 400, schema.StatusReady, ""},
		{"wrong amount", []step{{note: fakeNote{Outcome: "paid", Amount: "100.01", Currency: "CNY"}}}, 200, schema.StatusReady, schema.VerdictAmountMismatch},
		{"less than charged", []step{{note: fakeNote{Outcome: "paid", Amount: "99.99", Currency: "CNY"}}}, 200, schema.StatusReady, schema.VerdictPartial},
		{"wrong currency", []step{{note: fakeNote{Outcome: "paid", Amount: "100.00", Currency: "USD"}}}, 200, schema.StatusReady, schema.VerdictCurrencyMismatch},
		{"partial payment", []step{{note: fakeNote{Outcome: "partial", Amount: "50.00", Currency: "CNY"}}}, 200, schema.StatusReady, schema.VerdictPartial},
		// A security review finding: a real payment of another order's charge,
		// carrying this order's id, pays nothing here; the charge made for it
		// does.
		{"another order's charge", []step{{note: fakeNote{Outcome: "paid", Amount: "100.00", Currency: "CNY", Charge: "ref-P0other"}}}, 200, schema.StatusReady, schema.VerdictRefMismatch},
		{"its own charge", []step{{note: fakeNote{Outcome: "paid", Amount: "100.00", Currency: "CNY", Charge: "own"}}}, 200, schema.StatusPaid, schema.VerdictApplied},
		{"pending after paid (out of order)", []step{{note: paid}, {note: fakeNote{Outcome: "pending"}}}, 200, schema.StatusPaid, schema.VerdictPending},
		{"failed after paid", []step{{note: paid}, {note: fakeNote{Outcome: "failed"}}}, 200, schema.StatusPaid, schema.VerdictIgnored},
		{"failed", []step{{note: fakeNote{Outcome: "failed"}}}, 200, schema.StatusFailed, schema.VerdictApplied},
		{"paid after expiry", []step{{note: fakeNote{Outcome: "expired"}}, {note: paid}}, 200, schema.StatusPaid, schema.VerdictApplied},
		{"sandbox order on the live endpoint", []step{{note: paid, prefix: "/api"}}, 404, schema.StatusReady, ""},
		{"unknown order", []step{{note: fakeNote{Order: schema.NewOrderID(h.uc.Create.now(), 1), Outcome: "paid", Amount: "1.00", Currency: "CNY"}}}, 400, schema.StatusReady, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := h.createOK(h.baseParams())["paymentId"].(string)
			var last *response
			for _, s := range tt.steps {
				if s.note.Order == "" {
					s.note.Order = id
				}
				if s.note.Charge == "own" {
					s.note.Charge = "ref-" + id
				}
				if s.prefix == "" {
					s.prefix = "/sandbox"
				}
				last = h.notify(s.prefix, s.note, s.forged)
			}
			if last.Status != tt.wantStatus {
				t.Fatalf("answer %d %q, want %d", last.Status, last.Raw, tt.wantStatus)
			}
			if last.Status == 200 && last.Raw != "success" {
				t.Fatalf("answer %q, want the provider's success", last.Raw)
			}
			o, err := h.store.Get(context.Background(), id)
			if err != nil || o.Status != tt.wantOrder {
				t.Fatalf("order %v %v, want %s", o.Status, err, tt.wantOrder)
			}
			recs := h.records(id)
			if tt.wantVerdict == "" {
				return
			}
			if len(recs) == 0 || recs[0].Verdict != tt.wantVerdict {
				t.Fatalf("records %+v, want last verdict %s", recs, tt.wantVerdict)
			}
			if len(recs) != len(tt.steps) {
				t.Fatalf("%d records for %d notifications", len(recs), len(tt.steps))
			}
		})
	}
}

// TestNotificationsRefusedWithoutAnOrder: what names no order of ours, or
// does not verify, is kept on the refused list for support.
func TestNotificationsRefusedWithoutAnOrder(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	ghost := schema.NewOrderID(h.uc.Create.now(), 2)
	if r := h.notify("/sandbox", fakeNote{Order: ghost, Outcome: "paid", Amount: "1.00", Currency: "CNY"}, false); r.Status != 400 {
		t.Fatalf("unknown order answered %d %s", r.Status, r.Raw)
	}
	if r := h.notify("/sandbox", fakeNote{Order: "not-an-id", Outcome: "paid"}, true); r.Status != 400 {
		t.Fatalf("forged answered %d %s", r.Status, r.Raw)
	}
	raw, err := h.rdb.LRange(context.Background(), schema.RefusedNotificationsKey, 0, -1).Result()
	if err != nil || len(raw) != 2 {
		t.Fatalf("refused list %v %v", raw, err)
	}
	var rec schema.NotificationRecord
	if err := json.Unmarshal([]byte(raw[1]), &rec); err != nil || rec.Verdict != schema.VerdictUnknownOrder || rec.OrderID != ghost {
		t.Fatalf("first refusal %+v %v", rec, err)
	}
	if err := json.Unmarshal([]byte(raw[0]), &rec); err != nil || rec.Verdict != schema.VerdictBadSignature {
		t.Fatalf("second refusal %+v %v", rec, err)
	}
}

// TestChargedInBDT: a USD bdpsp_a order is charged in BDT at the rate of
// the moment, recorded on the order; the provider is asked for BDT, and
// only a BDT payment of that amount pays it.
func TestChargedInBDT(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = "bdpsp_a", "USD", "100"
	id := h.createOK(p)["paymentId"].(string)
	o, err := h.store.Get(context.Background(), id)
	if err != nil || o.ChargeAmount != 12150_00 || o.ChargeCurrency != "BDT" || o.FXRate != "121.5" {
		t.Fatalf("order %+v %v", o, err)
	}
	if got := h.prov.Last.Load().(provider.Payment); got.Charge != (provider.Money{Amount: 12150_00, Currency: "BDT"}) ||
		got.Original != (provider.Money{Amount: 100_00, Currency: "USD"}) {
		t.Fatalf("provider asked for %+v", got)
	}
	post := func(n fakeNote) *response {
		body, _ := json.Marshal(n)
		req := httptest.NewRequest(http.MethodPost, "/sandbox/gatewaynotification/bdpsp_a/ipn", strings.NewReader(string(body)))
		req.Header.Set("X-Fake-Sig", fakeSign(body))
		return h.do(req)
	}
	post(fakeNote{Order: id, Outcome: "paid", Amount: "100.00", Currency: "USD"})
	if o, _ := h.store.Get(context.Background(), id); o.Status != schema.StatusReady {
		t.Fatalf("the order's own amount paid a BDT charge: %s", o.Status)
	}
	post(fakeNote{Order: id, Outcome: "paid", Amount: "12150.00", Currency: "BDT"})
	if o, _ := h.store.Get(context.Background(), id); o.Status != schema.StatusPaid {
		t.Fatalf("BDT payment of the charge: %s", o.Status)
	}
	// Without a rate the method is unavailable for USD, with a clear error.
	p["paymentMethod"] = "bdcard"
	delete(h.uc.Confirm.rates.(fixedRates), fxPairUSDBDT)
	r := h.post(signed(p, h.acct.APIKey))
	if r.Status != 400 || r.Body.Error != "method_unavailable" || !strings.Contains(r.Body.Msg, "USD to BDT") {
		t.Fatalf("no rate: %d %s", r.Status, r.Raw)
	}
}

// TestProviderDownAtInitialise: the order is stored first, the provider's
// failure is the merchant's clear error, and the order says failed.
func TestProviderDownAtInitialise(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	tests := []struct {
		name   string
		err    error
		status int
		kind   string
	}{
		{"unavailable", fmt.Errorf("fake: %w", provider.ErrUnavailable), 503, "unavailable"},
		{"refused", fmt.Errorf("fake: %w", provider.ErrRefused), 502, "provider_refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.prov.Fail.Store(&tt.err)
			defer h.prov.Fail.Store(nil)
			p := h.baseParams()
			p["clientOrderId"] = "down-" + tt.name
			r := h.post(signed(p, h.acct.APIKey))
			if r.Status != tt.status || r.Body.Error != tt.kind || !strings.Contains(r.Body.Msg, "is failed") {
				t.Fatalf("create: %d %s", r.Status, r.Raw)
			}
			id := strings.Fields(r.Body.Msg[strings.Index(r.Body.Msg, "order ")+len("order "):])[0]
			o, err := h.store.Get(context.Background(), id)
			if err != nil || o.Status != schema.StatusFailed {
				t.Fatalf("order %s: %+v %v", id, o, err)
			}
			// The clientOrderId is free again: a retry makes a new order.
			h.prov.Fail.Store(nil)
			if d := h.createOK(p); d["paymentId"] == id || d["status"] != 1.0 {
				t.Fatalf("retry: %v", d)
			}
		})
	}
}
