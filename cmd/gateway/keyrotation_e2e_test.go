package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// keyReceiver is a merchant's webhook endpoint that verifies SPEC.md's MD5
// sign with the one API key it holds, as a receiver does, and acknowledges
// only what verifies: a webhook signed with another key is refused and,
// after the short test schedule, dead.
type keyReceiver struct {
	url  string
	mu   sync.Mutex
	key  string
	got  chan hookRequest
	seen map[string]bool // payment ids it acknowledged
}

func newKeyReceiver(t *testing.T, key string) *keyReceiver {
	t.Helper()
	m := &keyReceiver{key: key, got: make(chan hookRequest, 20), seen: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		m.got <- hookRequest{form: form, header: r.Header.Clone(), body: string(raw)}
		m.mu.Lock()
		defer m.mu.Unlock()
		if !signedWith(form, m.key) {
			http.Error(w, "sign does not verify", http.StatusBadRequest)
			return
		}
		m.seen[form.Get("paymentId")] = true
		_, _ = io.WriteString(w, "success")
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL + "/hook"
	return m
}

// holds makes the receiver verify with key from now on.
func (m *keyReceiver) holds(key string) {
	m.mu.Lock()
	m.key = key
	m.mu.Unlock()
}

func (m *keyReceiver) acknowledged(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[id]
}

// signedWith says whether a webhook's MD5 sign is made with key.
func signedWith(form url.Values, key string) bool {
	p := schema.Params{}
	for k := range form {
		p[k] = form.Get(k)
	}
	return schema.VerifySign(p, key, form.Get("sign"))
}

// paidHook creates an order signed with key, pays it in the sandbox and
// returns its first webhook.
func paidHook(t *testing.T, s *server, shop account, key string, rcv *keyReceiver) hookRequest {
	t.Helper()
	r := s.create(t, createParams(shop.AppID), key)
	id, _ := r.Data["paymentId"].(string)
	if r.Status != 200 || id == "" {
		t.Fatalf("create: %+v", r)
	}
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	for {
		h := nextHook(t, rcv.got)
		if h.form.Get("paymentId") == id {
			testenv.Eventually(t, 10*time.Second, "the webhook acknowledged", func() bool { return rcv.acknowledged(id) })
			return h
		}
	}
}

// TestKeyRotationWebhooksEndToEnd: through the binary, a receiver that
// verifies the MD5 sign with the API key it knows keeps verifying every
// webhook through a key rotation's grace (they are signed with the old
// key, the Standard Webhooks header with the unchanged webhook secret);
// after `merchant confirm-webhook-key` (audited) webhooks are signed with
// the new key; a later rotation signs with the then old key again until
// its grace ends, and then, by the clock of a process past the grace, with
// the new one.
func TestKeyRotationWebhooksEndToEnd(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	rcv := newKeyReceiver(t, "")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "rotating shop", "--sandbox", "--callback", rcv.url, "--json")
	rcv.holds(shop.APIKey)
	s := e.serve()

	var k1 account
	e.cli(&k1, "merchant", "rotate-key", shop.AppID, "--grace", "1h", "--json")
	// The server has the rotation once the new key creates.
	testenv.Eventually(t, 5*time.Second, "the new key creates", func() bool {
		return s.create(t, createParams(shop.AppID), k1.APIKey).Status == 200
	})
	h := paidHook(t, s, shop, k1.APIKey, rcv)
	if !signedWith(h.form, shop.APIKey) || signedWith(h.form, k1.APIKey) {
		t.Fatalf("in the grace the webhook is not signed with the old key only: %v", h.form)
	}
	h.verify(t, shop.WebhookSecret, "evt_paid_"+h.form.Get("paymentId"))

	// The merchant confirms its receiver has the new key; a process that
	// starts afterwards signs with it (the running one within a second).
	s.stop(t)
	var confirmed map[string]any
	e.cli(&confirmed, "merchant", "confirm-webhook-key", shop.AppID, "--json")
	if confirmed["webhookKey"] != webhookKeyWord(false) {
		t.Fatalf("confirm-webhook-key printed %v", confirmed)
	}
	rcv.holds(k1.APIKey)
	s = e.serve()
	h = paidHook(t, s, shop, k1.APIKey, rcv)
	if !signedWith(h.form, k1.APIKey) || signedWith(h.form, shop.APIKey) {
		t.Fatalf("after the confirmation the webhook is not signed with the new key: %v", h.form)
	}
	checkConfirmAudited(t, e, shop.AppID)

	// A later rotation waits for its own confirmation or its grace's end.
	var k2 account
	e.cli(&k2, "merchant", "rotate-key", shop.AppID, "--grace", "1h", "--json")
	testenv.Eventually(t, 5*time.Second, "the new key creates", func() bool {
		return s.create(t, createParams(shop.AppID), k2.APIKey).Status == 200
	})
	if h = paidHook(t, s, shop, k2.APIKey, rcv); !signedWith(h.form, k1.APIKey) {
		t.Fatalf("the second rotation's grace: the webhook is not signed with the old key: %v", h.form)
	}
	s.stop(t)
	rcv.holds(k2.APIKey)
	s = e.serve("GATEWAY_CLOCK_OFFSET=2h")
	if h = paidHook(t, s, shop, k2.APIKey, rcv); !signedWith(h.form, k2.APIKey) || signedWith(h.form, k1.APIKey) {
		t.Fatalf("after the grace the webhook is not signed with the new key: %v", h.form)
	}
}

// checkConfirmAudited: the CLI's confirmation is in the audit log.
func checkConfirmAudited(t *testing.T, e *e2e, appid string) {
	t.Helper()
	ch, err := platform.OpenClickHouse(e.chDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	search := audit.NewSearcher(ch)
	testenv.Eventually(t, 30*time.Second, "the confirmation in the audit log", func() bool {
		p, err := search.Search(context.Background(), audit.Filter{AppID: appid, Action: "merchant.confirm_webhook_key"})
		return err == nil && p.Total == 1
	})
}
