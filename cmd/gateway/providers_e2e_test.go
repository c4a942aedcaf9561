package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// formRe and inputRe read a simulated provider page's form, as a tester's
// browser would.
var (
	formRe  = regexp.MustCompile(`<form[^>]*method="post"[^>]*action="([^"]*)"`)
	inputRe = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// payOnPage opens the provider's page and clicks outcome ("pay" or "fail").
func payOnPage(t *testing.T, page, outcome string) {
	t.Helper()
	res, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := formRe.FindStringSubmatch(string(body))
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("provider page %s: %d\n%s", page, res.StatusCode, body)
	}
	action, err := res.Request.URL.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"outcome": {outcome}}
	for _, in := range inputRe.FindAllStringSubmatch(string(body), -1) {
		form.Set(in[1], in[2])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.PostForm(action.String(), form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 400 {
		t.Fatalf("clicking %s on %s: %d", outcome, action, res.StatusCode)
	}
}

// TestProvidersEndToEnd: for each wired family, a sandbox order goes from
// create to the simulated provider's page, where a tester pays or fails; the
// simulator notifies the gateway exactly as its provider would (signed with
// the sandbox secret), the adapter verifies it, the order moves, and a paid
// order's webhook reaches the merchant. `gateway order show` tells the story.
func TestProvidersEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	hooks := newHookReceiver(t)
	var rate map[string]any
	e.cli(&rate, "fx", "set", "USD", "BDT", "121.50", "--json")
	s := e.serve()
	tests := []struct {
		name, method, currency, outcome string
		want                            float64
	}{
		{"wallet_a pays", "wallet_a", "CNY", "pay", 2},
		// wallet_a's provider closes a trade that ended without money
		// (TRADE_CLOSED): a failed payment.
		{"wallet_a fails", "wallet_a", "CNY", "fail", 3},
		{"wallet_b pays", "wallet_b", "CNY", "pay", 2},
		{"wallet_b fails", "wallet_b", "USD", "fail", 3},
		{"cryptohost pays", "cryptohost", "USD", "pay", 2},
		{"cryptohost fails", "cryptohost", "USD", "fail", 3},
		{"bdcard pays", "bdcard", "BDT", "pay", 2},
		{"bdcard fails", "bdcard", "BDT", "fail", 3},
		{"bdpsp_a pays a USD order in BDT", "bdpsp_a", "USD", "pay", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := createParams(shop.AppID)
			p["paymentMethod"], p["currency"], p["notify_url"] = tt.method, tt.currency, hooks.url
			r := s.create(t, p, shop.APIKey)
			if r.Status != 200 || r.Data["status"] != 1.0 {
				t.Fatalf("create: %+v", r)
			}
			id := r.Data["paymentId"].(string)
			var show struct {
				Order struct{ QRPayload, ProviderURL, ProviderRef string }
			}
			e.cli(&show, "order", "show", id, "--json")
			page := show.Order.ProviderURL
			if page == "" {
				page = show.Order.QRPayload
			}
			if page == "" || show.Order.ProviderRef == "" || !strings.HasPrefix(page, s.base+"/sandbox/provider/"+tt.method+"/") {
				t.Fatalf("the provider's page is %q (ref %q)", page, show.Order.ProviderRef)
			}
			payOnPage(t, page, tt.outcome)
			testenv.Eventually(t, 10*time.Second, "condition", func() bool {
				return s.order(t, shop.AppID, shop.QueryKey, id).Data["status"] == tt.want
			})
			if tt.want == 2 {
				testenv.Eventually(t, 10*time.Second, "condition", func() bool { return hooks.got(id).Get("status") == "2" })
			}
			var story struct {
				Notifications []struct{ Verdict, Provider string }
			}
			e.cli(&story, "order", "show", id, "--json")
			applied := 0
			for _, n := range story.Notifications {
				if n.Verdict == "applied" && n.Provider == tt.method {
					applied++
				}
			}
			if applied != 1 {
				t.Fatalf("notifications %+v: want one applied", story.Notifications)
			}
		})
	}
	// A payer's browser return is never trusted alone: without a successful
	// search at the provider it pays nothing.
	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"] = "bdpsp_b", "BDT"
	unpaid, _ := s.create(t, p, shop.APIKey).Data["paymentId"].(string)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.PostForm(s.base+"/sandbox/gatewaynotification/bdpsp_b/return/success", url.Values{"mer_txnid": {unpaid}, "pay_status": {"Successful"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 303 || !strings.HasPrefix(res.Header.Get("Location"), s.base+"/") {
		t.Fatalf("the payer's return answered %d, Location %q: want a redirect onwards", res.StatusCode, res.Header.Get("Location"))
	}
	if q := s.order(t, shop.AppID, shop.QueryKey, unpaid); q.Data["status_str"] != "ready" {
		t.Fatalf("a forged return moved the order: %+v", q.Data)
	}
	var forged struct{ Notifications []struct{ Verdict string } }
	e.cli(&forged, "order", "show", unpaid, "--json")
	if len(forged.Notifications) != 0 {
		t.Fatalf("an unverified return was kept on the order: %+v", forged.Notifications)
	}
	// The sandbox driver goes through the simulator's notification too;
	// for bdpsp_b that is the payer's return, verified by a search.
	for _, method := range []string{"wallet_b", "bdpsp_b"} {
		p := createParams(shop.AppID)
		p["paymentMethod"], p["currency"] = method, map[string]string{"wallet_b": "CNY", "bdpsp_b": "BDT"}[method]
		id, _ := s.create(t, p, shop.APIKey).Data["paymentId"].(string)
		if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
			t.Fatalf("%s sandbox pay: %+v", method, r)
		}
		var story struct {
			Order         struct{ ChargeCurrency string }
			Notifications []struct{ Verdict string }
		}
		e.cli(&story, "order", "show", id, "--json")
		if len(story.Notifications) == 0 || story.Notifications[len(story.Notifications)-1].Verdict != "applied" {
			t.Fatalf("%s: the sandbox driver went around the simulator: %+v", method, story.Notifications)
		}
	}
}

// hookReceiver is a merchant's webhook endpoint that acknowledges all.
type hookReceiver struct {
	url   string
	mu    sync.Mutex
	hooks map[string]url.Values
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{hooks: map[string]url.Values{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		h.mu.Lock()
		h.hooks[r.PostForm.Get("paymentId")] = r.PostForm
		h.mu.Unlock()
		_, _ = io.WriteString(w, "success")
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/hook"
	return h
}

func (h *hookReceiver) got(id string) url.Values {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hooks[id]
}

// TestLiveProviderDownAtCreate: a live merchant's provider that hangs holds
// the create no longer than its time-out; the merchant gets a clear error
// naming the order, and the order says failed. `merchant show` lists the
// methods each merchant can use.
func TestLiveProviderDownAtCreate(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	var live account
	e.cli(&live, "merchant", "create", "--name", "live", "--json")
	cfg := `{"base_url": "` + hang.URL + `", "api_key": "k", "webhook_secret": "w"}`
	t.Setenv("GATEWAY_PROVIDER_CRYPTOHOST", cfg) // for the CLI below; serve gets it too
	s := e.serve("GATEWAY_PROVIDER_CRYPTOHOST="+cfg, "GATEWAY_PROVIDER_TIMEOUT=300ms")
	var shown struct{ Methods []string }
	e.cli(&shown, "merchant", "show", live.AppID, "--json")
	if strings.Join(shown.Methods, ",") != "cryptohost,usdt_direct,balance,select" {
		t.Fatalf("live methods %v", shown.Methods)
	}
	// A live usdt_direct order needs a live network configured: none is.
	u := createParams(live.AppID)
	u["paymentMethod"], u["currency"] = "usdt_direct", "USD"
	if r := s.create(t, u, live.APIKey); r.Status != 400 || r.Error != "method_unavailable" {
		t.Fatalf("live usdt_direct without a network: %+v", r)
	}
	p := createParams(live.AppID)
	p["paymentMethod"], p["currency"] = "cryptohost", "USD"
	start := time.Now()
	r := s.create(t, p, live.APIKey)
	took := time.Since(start)
	if r.Status != 503 || r.Error != "unavailable" || !strings.Contains(r.Msg, "is failed") {
		t.Fatalf("create with the provider down: %+v", r)
	}
	if took > 5*time.Second {
		t.Fatalf("the create waited %v for a provider with a 300ms time-out", took)
	}
	id := strings.Fields(r.Msg[strings.Index(r.Msg, "order ")+len("order "):])[0]
	if q := s.order(t, live.AppID, live.QueryKey, id); q.Data["status_str"] != "failed" {
		t.Fatalf("order after the provider failed: %+v", q)
	}
}
