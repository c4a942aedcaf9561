package dispatcher

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestWebhookIsSignedForm(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	e.start(testConfig())

	plain := e.paidOrder(rc.URL + "/hook?shop=1")
	plain.Method = schema.MethodCryptohost
	e.publish(plain, schema.EventPaid)
	full := e.paidOrder(rc.URL + "/hook")
	full.Description, full.ClientOrderID = "订单 #42 café & more=1", "A-77"
	e.publish(full, schema.EventPaid)

	testenv.Eventually(t, 10*time.Second, "both webhooks", func() bool { return rc.count() == 2 })
	for _, r := range rc.requests() {
		if r.contentType != "application/x-www-form-urlencoded" {
			t.Errorf("Content-Type %q", r.contentType)
		}
		p := schema.Params{}
		for k, v := range r.form {
			if len(v) != 1 {
				t.Fatalf("%s sent %d times", k, len(v))
			}
			p[k] = v[0]
		}
		if !schema.VerifySign(p, e.acct.APIKey, p["sign"]) || p["sign_type"] != "MD5" {
			t.Errorf("signature does not verify with the merchant's key: %v", p)
		}
		o := plain
		if p["paymentId"] == full.ID {
			o = full
		}
		want := callbackParams(o)
		want["sign"], want["sign_type"] = p["sign"], "MD5"
		if len(p) != len(want) {
			t.Errorf("fields %v, want %v", p, want)
		}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s = %q, want %q", k, p[k], v)
			}
		}
	}
	if got := rc.requests(); got[0].form.Get("paymentMethod") != "crypto" && got[1].form.Get("paymentMethod") != "crypto" {
		t.Error("cryptohost not reported as crypto")
	}
}

// TestAcknowledgement sends each order to its own receiver; with one retry
// in the schedule, an acknowledged order is called once and delivered, any
// other answer twice and dead-lettered.
func TestAcknowledgement(t *testing.T) {
	e := newEnv(t)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String() + "/hook"
	closed.Close()
	final := newReceiver(t, answer(200, "success"))

	tests := []struct {
		name    string
		respond func(int, http.ResponseWriter, *http.Request)
		url     string // instead of a receiver
		ack     bool
		status  int
		errPart string
	}{
		{"success", answer(200, "success"), "", true, 200, ""},
		{"upper case", answer(200, "SUCCESS"), "", true, 200, ""},
		{"white space", answer(200, " success\n"), "", true, 200, ""},
		{"201", answer(201, "Success"), "", true, 201, ""},
		{"ok", answer(200, "ok"), "", false, 200, "not \"success\""},
		{"json", answer(200, `{"result":"success"}`), "", false, 200, "not \"success\""},
		{"500 success", answer(500, "success"), "", false, 500, "HTTP 500"},
		{"empty 204", answer(204, ""), "", false, 204, "not \"success\""},
		{"over 4 KiB", answer(200, "success"+strings.Repeat(" ", maxBodyRead)), "", false, 200, "longer than 4096 bytes"},
		{"chunked", func(_ int, w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("suc"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("cess"))
		}, "", true, 200, ""},
		{"connection closed after", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte("success"))
		}, "", true, 200, ""},
		{"redirect", func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, final.URL, http.StatusFound)
		}, "", false, 302, "redirects are not followed"},
		{"time-out", func(_ int, w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, "", false, 0, "timeout after 500ms"},
		{"connection refused", nil, closedURL, false, 0, "connection refused"},
	}
	cfg := testConfig()
	cfg.Schedule = []time.Duration{50 * time.Millisecond}
	cfg.Timeout = 500 * time.Millisecond
	d := e.start(cfg)

	receivers := make([]*receiver, len(tests))
	orders := make([]*schema.Order, len(tests))
	for i, tt := range tests {
		target := tt.url
		if tt.respond != nil {
			receivers[i] = newReceiver(t, tt.respond)
			target = receivers[i].URL + "/hook"
		}
		orders[i] = e.pay(target)
	}
	testenv.Eventually(t, 20*time.Second, "every delivery final", func() bool {
		for _, o := range orders {
			if st := e.state(d, o.ID); st != StateDelivered && st != StateDead {
				return false
			}
		}
		return true
	})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantState, wantCalls := StateDead, 2
			if tt.ack {
				wantState, wantCalls = StateDelivered, 1
			}
			if st := e.state(d, orders[i].ID); st != wantState {
				t.Errorf("state %s, want %s", st, wantState)
			}
			if rc := receivers[i]; rc != nil && rc.count() != wantCalls {
				t.Errorf("receiver called %d times, want %d", rc.count(), wantCalls)
			}
			log, err := d.Log(context.Background(), orders[i].ID)
			if err != nil || len(log) != wantCalls {
				t.Fatalf("log %+v, %v; want %d attempts", log, err, wantCalls)
			}
			a := log[0]
			if a.Success != tt.ack || a.Status != tt.status || !strings.Contains(a.Error, tt.errPart) || a.Attempt != 1 || a.Manual {
				t.Errorf("attempt %+v, want success %v status %d error containing %q", a, tt.ack, tt.status, tt.errPart)
			}
			if _, err := time.Parse(time.RFC3339, a.At); err != nil {
				t.Errorf("at %q: %v", a.At, err)
			}
		})
	}
	if final.count() != 0 {
		t.Errorf("a redirect was followed")
	}
}

func TestPrivateAddressesRefusedByDefault(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	cfg := testConfig()
	cfg.AllowPrivate = false
	d := e.start(cfg)
	port := rc.URL[strings.LastIndex(rc.URL, ":")+1:]
	o := e.pay("http://localhost:" + port + "/hook")

	testenv.Eventually(t, 10*time.Second, "dead-lettered", func() bool { return e.state(d, o.ID) == StateDead })
	log, _ := d.Log(context.Background(), o.ID)
	if rc.count() != 0 || len(log) != 3 {
		t.Fatalf("receiver called %d times, %d attempts logged", rc.count(), len(log))
	}
	if !strings.Contains(log[0].Error, "refused") || !strings.Contains(log[0].Error, "loopback") || log[0].Status != 0 {
		t.Errorf("attempt %+v, want a refusal naming loopback", log[0])
	}
}

func TestOnlyPaidEventsWithNotifyURLAreSent(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	d := e.start(testConfig())

	created := e.paidOrder(rc.URL)
	created.Status = schema.StatusPending
	e.publish(created, schema.EventCreated)
	noURL := e.pay("")
	o := e.pay(rc.URL)
	e.publish(o, schema.EventPaid) // a repeated paid event changes nothing

	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.state(d, o.ID) == StateDelivered })
	testenv.Eventually(t, 10*time.Second, "every entry acknowledged", func() bool {
		for _, s := range schema.AllShards() {
			p, err := e.rdb.XPending(context.Background(), schema.EventsKey(s), group).Result()
			if err != nil || p.Count != 0 {
				return false
			}
		}
		return true
	})
	time.Sleep(200 * time.Millisecond)
	if rc.count() != 1 || e.state(d, noURL.ID) != "" || e.state(d, created.ID) != "" {
		t.Fatalf("calls %d, no-url state %q, created state %q", rc.count(), e.state(d, noURL.ID), e.state(d, created.ID))
	}
}

// TestRetentionFollowsOrder: delivery state and log expire with the order.
func TestRetentionFollowsOrder(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	d := e.start(testConfig())
	o := e.pay(rc.URL)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.state(d, o.ID) == StateDelivered })
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(o.ID)
	order := e.rdb.PTTL(ctx, schema.OrderKey(shard, o.ID)).Val()
	for _, k := range []string{schema.WebhookKey(shard, o.ID), schema.WebhookLogKey(shard, o.ID)} {
		ttl := e.rdb.PTTL(ctx, k).Val()
		if ttl <= 0 || ttl > order || order-ttl > 5*time.Second {
			t.Errorf("%s expires in %s, the order in %s", k, ttl, order)
		}
	}
}

// TestScriptCacheFlushed: after Redis loses its script cache (a restart),
// scheduling, claiming and recording load the scripts again.
func TestScriptCacheFlushed(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	d := e.start(testConfig())
	first := e.pay(rc.URL)
	testenv.Eventually(t, 10*time.Second, "first delivered", func() bool { return e.state(d, first.ID) == StateDelivered })
	if err := e.rdb.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	second := e.pay(rc.URL)
	testenv.Eventually(t, 10*time.Second, "second delivered", func() bool { return e.state(d, second.ID) == StateDelivered })
}

// TestPostOverTLS: https notify_urls are called over TLS, and a certificate
// the system does not trust is a failed attempt.
func TestPostOverTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("a") != "1" {
			http.Error(w, "no form", http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte("success"))
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()

	untrusted := post(ctx, newHTTPClient(cfg), srv.URL+"/hook", "a=1", modernHeaders{}, cfg.Timeout)
	if untrusted.ack || !strings.Contains(untrusted.err, "certificate") {
		t.Errorf("self-signed certificate: %+v", untrusted)
	}
	trusting := newHTTPClient(cfg)
	trusting.TLSConfig.RootCAs = x509.NewCertPool()
	trusting.TLSConfig.RootCAs.AddCert(srv.Certificate())
	if r := post(ctx, trusting, srv.URL+"/hook", "a=1", modernHeaders{}, cfg.Timeout); !r.ack || r.status != 200 {
		t.Errorf("trusted certificate: %+v", r)
	}
}
