package dispatcher

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// resendApp calls the merchant resend use case over the env's accounts with
// a JSON body's parameters, answered as the API door (web/api) answers: the
// status its error kind maps to, the kind as "error", the result as "data".
func (e *env) resendApp() func(body string) (int, map[string]any) {
	e.t.Helper()
	api, err := NewResendAPI(ResendConfig{Limit: platform.Limit{PerSecond: 100, Burst: 100}}, e.rdb, storeLookup{e.accounts}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return func(body string) (int, map[string]any) {
		e.t.Helper()
		var p schema.Params
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			e.t.Fatalf("body %s: %v", body, err)
		}
		r, err := api.MerchantResend(context.Background(), p)
		if err != nil {
			kind := platform.KindOf(err)
			return platform.Status(kind), map[string]any{"error": string(kind), "msg": err.Error()}
		}
		return 200, map[string]any{"data": map[string]any{"paymentId": r.PaymentID, "refundId": r.RefundID,
			"eventId": r.EventID, "resend": "queued"}}
	}
}

// storeLookup is Accounts read straight from the store.
type storeLookup struct{ st *merchant.Store }

func (s storeLookup) Lookup(ctx context.Context, appid string) (*merchant.Account, error) {
	return s.st.Get(ctx, appid)
}

// signed is a resend request body signed with key, with extra fields
// overriding the defaults.
func signed(t *testing.T, appid, key, id string, extra map[string]string) string {
	t.Helper()
	p := schema.Params{"appid": appid, "action": "resend", "paymentId": id}
	for k, v := range extra {
		if v == "" {
			delete(p, k)
			continue
		}
		p[k] = v
	}
	if _, set := extra["sign"]; !set {
		p["sign"] = schema.Sign(p, key)
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// TestResendAPI: a signed resend of the merchant's delivered order makes
// one more attempt, recorded as manual, with the same webhook-id; the
// checks run in createorder's order with its error shape, and another
// merchant's order is 404 like a missing one.
func TestResendAPI(t *testing.T) {
	e := newEnv(t)
	other, err := e.accounts.Create(context.Background(), merchant.NewAccount{Name: "other shop"})
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, answer(200, "success"))
	d := e.start(testConfig())
	o := e.pay(rc.URL + "/hook")
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.state(d, o.ID) == StateDelivered })
	call := e.resendApp()
	key := e.acct.APIKey

	tests := []struct {
		name   string
		body   string
		status int
		kind   string
	}{
		{"missing paymentId", signed(t, e.acct.AppID, key, "", nil), 400, "missing_parameter"},
		{"missing sign", signed(t, e.acct.AppID, key, o.ID, map[string]string{"sign": ""}), 400, "missing_parameter"},
		{"unknown appid", signed(t, "999999", key, o.ID, nil), 401, "invalid_appid"},
		{"bad sign", signed(t, e.acct.AppID, key, o.ID, map[string]string{"sign": strings.Repeat("0", 32)}), 401, "invalid_sign"},
		{"signed with another key", signed(t, e.acct.AppID, other.APIKey, o.ID, nil), 401, "invalid_sign"},
		{"sign_type", signed(t, e.acct.AppID, key, o.ID, map[string]string{"sign_type": "SHA1"}), 400, "invalid_sign_type"},
		{"wrong action", signed(t, e.acct.AppID, key, o.ID, map[string]string{"action": "createorder"}), 400, "invalid_parameter"},
		{"name outside the form", signed(t, e.acct.AppID, key, o.ID, map[string]string{"status": "2"}), 400, "invalid_parameter"},
		{"& in a value", signed(t, e.acct.AppID, key, o.ID+"&refundId=rf_1", nil), 400, "invalid_parameter"},
		{"other merchant's order", signed(t, other.AppID, other.APIKey, o.ID, nil), 404, "order_not_found"},
		{"unknown order", signed(t, e.acct.AppID, key, "P20260101000000000000000000000000000", nil), 404, "order_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := call(tt.body)
			if status != tt.status || out["error"] != tt.kind {
				t.Fatalf("%d %v, want %d %s", status, out, tt.status, tt.kind)
			}
		})
	}
	if n := rc.count(); n != 1 {
		t.Fatalf("refused resends made attempts: %d requests", n)
	}

	status, out := call(signed(t, e.acct.AppID, key, o.ID, nil))
	data, _ := out["data"].(map[string]any)
	if status != 200 || data["resend"] != "queued" || data["eventId"] != "evt_paid_"+o.ID {
		t.Fatalf("resend: %d %v", status, out)
	}
	testenv.Eventually(t, 10*time.Second, "the manual attempt", func() bool { return rc.count() == 2 })
	testenv.Eventually(t, 10*time.Second, "recorded", func() bool {
		log, err := d.Log(context.Background(), o.ID)
		return err == nil && len(log) == 2 && log[1].Manual && log[1].Success
	})
	reqs := rc.requests()
	if reqs[0].header.Get("webhook-id") != reqs[1].header.Get("webhook-id") {
		t.Errorf("the resend has another webhook-id: %q, %q", reqs[0].header.Get("webhook-id"), reqs[1].header.Get("webhook-id"))
	}
	if e.state(d, o.ID) != StateDelivered {
		t.Errorf("after the resend: %s", e.state(d, o.ID))
	}
}
