package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// splitEnv is one running gateway with a sandbox merchant holding a USD
// balance, for the attacks on the signed string (SECURITY.md).
type splitEnv struct {
	s     *server
	shop  account
	rdb   *redis.Client
	hooks chan hookRequest
}

func newSplitEnv(t *testing.T) *splitEnv {
	t.Helper()
	e := newE2E(t)
	e.run("migrate")
	hooks := make(chan hookRequest, 10)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		hooks <- hookRequest{form: form, header: r.Header.Clone(), body: string(raw)}
		_, _ = io.WriteString(w, "success")
	}))
	t.Cleanup(rcv.Close)
	env := &splitEnv{hooks: hooks}
	e.cli(&env.shop, "merchant", "create", "--name", "split", "--sandbox", "--callback", rcv.URL+"/hook", "--json")
	e.cli(nil, "merchant", "credit", env.shop.AppID, "--currency", "USD", "--amount", "100.00", "--json")
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	env.rdb = redis.NewClient(opt)
	t.Cleanup(func() { _ = env.rdb.Close() })
	env.s = e.serve()
	return env
}

// usd is the merchant's available USD (the journal's bucket), minor units.
func (env *splitEnv) usd(t *testing.T) int64 {
	t.Helper()
	n, err := env.rdb.HGet(context.Background(), schema.AccountsKey(env.shop.AppID), "available:USD").Int64()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hostedParams is a hosted 5 USD wallet_a create the shop would sign.
func (env *splitEnv) hostedParams(extra ...string) schema.Params {
	p := schema.Params{"appid": env.shop.AppID, "clientip": "127.0.0.1", "action": "createorder",
		"amount": "5", "currency": "USD", "paymentMethod": "wallet_a"}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return p
}

// load opens GET /api/createorder with p, as a payer's browser does.
func (env *splitEnv) load(t *testing.T, p schema.Params) apiResponse {
	t.Helper()
	q := url.Values{}
	for k, v := range p {
		q.Set(k, v)
	}
	req, _ := http.NewRequest(http.MethodGet, env.s.base+"/api/createorder?"+q.Encode(), nil)
	return call(t, req)
}

// forge is the payer's rewrite: other parameters under the shop's sign,
// checked to share the shop's signed string, so the attack is real.
func forge(t *testing.T, signed, rewritten schema.Params) schema.Params {
	t.Helper()
	if schema.SignBase(signed) != schema.SignBase(rewritten) {
		t.Fatalf("not a re-split:\n%s\n%s", schema.SignBase(signed), schema.SignBase(rewritten))
	}
	rewritten["sign"] = signed["sign"]
	return rewritten
}

func wantRefused(t *testing.T, r apiResponse, param string) {
	t.Helper()
	if r.Status != 400 || !strings.Contains(r.Raw, param) {
		t.Fatalf("got %d %s, want 400 naming %s", r.Status, r.Raw, param)
	}
}

// TestSignedStringSplitting performs the security review's attacks on the
// signed string through the binary:
// in the hosted flow the payer holds the shop's signed URL, and the signed
// string joins name=value pairs with '&' unencoded, so payer input holding
// '&' lets the payer re-split the set under the same sign. Each variant is
// refused with a 400 naming the parameter and moves no money
// (schema.SignedForm's rules).
func TestSignedStringSplitting(t *testing.T) {
	env := newSplitEnv(t)
	before := env.usd(t)

	t.Run("customerName re-split into paymentMethod=balance", func(t *testing.T) {
		a := env.hostedParams("clientOrderId", "split-1", "customerName", "Eve&paymentMethod=balance&zzz")
		a["sign"] = schema.Sign(a, env.shop.APIKey)
		wantRefused(t, env.load(t, a), "customerName")
		c := forge(t, a, env.hostedParams("clientOrderId", "split-1", "customerName", "Eve",
			"paymentMethod", "balance", "zzz&paymentMethod", "wallet_a"))
		wantRefused(t, env.load(t, c), "zzz")
	})
	t.Run("return_url absorbs the rest, SPEC names only", func(t *testing.T) {
		a := env.hostedParams("clientOrderId", "split-2", "customerName", "Eve&paymentMethod=balance&return_url=https://evil.test/?",
			"return_url", "https://shop.test/ok")
		a["sign"] = schema.Sign(a, env.shop.APIKey)
		c := forge(t, a, env.hostedParams("clientOrderId", "split-2", "customerName", "Eve", "paymentMethod", "balance",
			"return_url", "https://evil.test/?&paymentMethod=wallet_a&return_url=https://shop.test/ok"))
		wantRefused(t, env.load(t, c), "return_url")
	})
	t.Run("description carries &notify_url=", func(t *testing.T) {
		a := env.hostedParams("description", "Gift&notify_url=http://127.0.0.1:9/steal?", "notify_url", "http://127.0.0.1:9/shop")
		a["sign"] = schema.Sign(a, env.shop.APIKey)
		wantRefused(t, env.load(t, a), "description")
		c := forge(t, a, env.hostedParams("description", "Gift",
			"notify_url", "http://127.0.0.1:9/steal?&notify_url=http://127.0.0.1:9/shop"))
		wantRefused(t, env.load(t, c), "notify_url")
	})
	t.Run("create signature posed as a paid webhook", func(t *testing.T) {
		checkWebhookForgery(t, env)
	})
	if after := env.usd(t); after != before {
		t.Fatalf("USD balance %d -> %d: an attack paid from it", before, after)
	}
}

// checkWebhookForgery: the shop signs a hosted create whose customerName
// is the payer's input; the payer re-splits it into a set with the victim
// order's paymentId, status=2 and status_str=paid. The gateway refuses both
// sets. The forged set still verifies under an MD5-only receiver (SPEC.md's
// scheme cannot tell), which is why the README's receiver checks the
// Standard Webhooks signature, keyed by a secret no create is signed with,
// and an MD5-only one must ask GET /api/order: both turn it away, and both
// accept the real webhook of the victim order once it is paid.
func checkWebhookForgery(t *testing.T, env *splitEnv) {
	t.Helper()
	victim := env.s.create(t, env.hostedParams(), env.shop.APIKey)
	id, _ := victim.Data["paymentId"].(string)
	if victim.Status != 200 || id == "" {
		t.Fatalf("victim order: %+v", victim)
	}
	a := env.hostedParams("customerName", "Eve&paymentId="+id+"&paymentMethod=wallet_a&status=2&status_str=paid&zzz")
	a["sign"] = schema.Sign(a, env.shop.APIKey)
	wantRefused(t, env.load(t, a), "customerName")
	c := forge(t, a, env.hostedParams("customerName", "Eve", "paymentId", id, "status", "2", "status_str", "paid",
		"zzz&paymentMethod", "wallet_a"))
	if r := env.load(t, c); r.Status != 400 {
		t.Fatalf("forged set accepted by createorder: %d %s", r.Status, r.Raw)
	}

	forged := url.Values{}
	for k, v := range c {
		forged.Set(k, v)
	}
	if !md5Receiver(forged, env.shop.APIKey) {
		t.Fatal("the forged set should verify under MD5 alone (else this test proves nothing)")
	}
	if readmeReceiver(env.shop.WebhookSecret, http.Header{}, []byte(forged.Encode())) {
		t.Fatal("the README's receiver accepted a forged callback")
	}
	if q := env.s.order(t, env.shop.AppID, env.shop.QueryKey, id); q.Data["status"] == 2.0 {
		t.Fatalf("GET /api/order says the victim order is paid: %+v", q)
	}

	if r := env.s.sandbox(t, env.shop.AppID, env.shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	real := nextHook(t, env.hooks)
	if real.form.Get("paymentId") != id || !md5Receiver(real.form, env.shop.APIKey) ||
		!readmeReceiver(env.shop.WebhookSecret, real.header, []byte(real.body)) {
		t.Fatalf("the real webhook does not verify: %+v", real)
	}
}

// md5Receiver is a webhook receiver written from SPEC.md alone.
func md5Receiver(form url.Values, apiKey string) bool {
	p := schema.Params{}
	for k := range form {
		p[k] = form.Get(k)
	}
	return schema.VerifySign(p, apiKey, form.Get("sign"))
}

// readmeReceiver is the README's Go receiver.
func readmeReceiver(secret string, h http.Header, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := []byte("v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), want) {
			return true
		}
	}
	return false
}

// TestBalanceReplay: the shop's signed hosted balance URL, loaded three
// times, pays once; the same clientOrderId over POST later answers the
// paid order; a hosted balance URL without clientOrderId is refused. Other
// methods keep SPEC.md's rows: a paid wallet_a clientOrderId may start a
// new order.
func TestBalanceReplay(t *testing.T) {
	env := newSplitEnv(t)
	before := env.usd(t)
	p := env.hostedParams("paymentMethod", "balance", "amount", "7", "clientOrderId", "shop-42")
	p["sign"] = schema.Sign(p, env.shop.APIKey)
	for i := range 3 {
		if r := env.load(t, p); r.Status != 200 {
			t.Fatalf("load %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	if after := env.usd(t); after != before-700 {
		t.Fatalf("USD balance %d -> %d after three loads, want one debit of 700", before, after)
	}
	post := env.hostedParams("paymentMethod", "balance", "amount", "7", "clientOrderId", "shop-42")
	r := env.s.create(t, post, env.shop.APIKey)
	if r.Status != 200 || r.Data["idempotent"] != true || r.Data["status"] != 2.0 || env.usd(t) != before-700 {
		t.Fatalf("POST replay: %+v, balance %d", r, env.usd(t))
	}

	bare := env.hostedParams("paymentMethod", "balance", "amount", "7")
	bare["sign"] = schema.Sign(bare, env.shop.APIKey)
	wantRefused(t, env.load(t, bare), "clientOrderId")

	w := env.hostedParams("clientOrderId", "w-1")
	first, _ := env.s.create(t, w, env.shop.APIKey).Data["paymentId"].(string)
	if r := env.s.sandbox(t, env.shop.AppID, env.shop.QueryKey, first, "pay"); r.Status != 200 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	again := env.s.create(t, env.hostedParams("clientOrderId", "w-1"), env.shop.APIKey)
	if id, _ := again.Data["paymentId"].(string); again.Status != 200 || id == first || again.Data["idempotent"] == true {
		t.Fatalf("a paid wallet_a clientOrderId should start a new order: %+v", again)
	}
}
