package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// postTo signs nothing: p must already carry its sign when it should.
func (h *harness) postTo(path string, p schema.Params, header ...string) *response {
	h.t.Helper()
	b, _ := json.Marshal(p)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return h.do(req)
}

// idemKey is the Redis name of an Idempotency-Key of appid.
func idemKey(appid, key string) string {
	sum := sha256.Sum256([]byte(key))
	return schema.IdempotencyKey(appid, hex.EncodeToString(sum[:]))
}

func (h *harness) idemStored(appid, key string) bool {
	h.t.Helper()
	_, err := h.rdb.Get(context.Background(), idemKey(appid, key)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		h.t.Fatal(err)
	}
	return err == nil
}

// TestIdempotencyKeyReplays: a retry with the key gets the first answer
// byte for byte, even after the order was paid; without the key the same
// body makes a new order, as SPEC.md says.
func TestIdempotencyKeyReplays(t *testing.T) {
	h := newRedisHarness(t)
	body := signed(h.baseParams(), h.acct.APIKey)
	first := h.post(body, command.HeaderIdempotencyKey, "order-1")
	if first.Status != 200 || first.Header.Get(HeaderIdempotentReplayed) != "" {
		t.Fatalf("first call: %d %s", first.Status, first.Raw)
	}
	id := first.Data(t)["paymentId"].(string)
	sandboxMove(t, h, id, "pay")
	again := h.post(body, command.HeaderIdempotencyKey, "order-1")
	if again.Status != 200 || again.Raw != first.Raw || again.Header.Get(HeaderIdempotentReplayed) != "true" ||
		again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("replay: %d %q\nfirst:  %s", again.Status, again.Raw, first.Raw)
	}
	// Re-signed (the same parameters, sign in upper case) is the same call.
	upper := signed(h.baseParams(), h.acct.APIKey)
	upper["sign"] = strings.ToUpper(upper["sign"])
	if r := h.post(upper, command.HeaderIdempotencyKey, "order-1"); r.Raw != first.Raw {
		t.Fatalf("re-signed replay: %s", r.Raw)
	}
	plain := h.post(body)
	if plain.Status != 200 || plain.Data(t)["paymentId"] == id {
		t.Fatalf("without the key the same body must create again: %s", plain.Raw)
	}
	if n := orderCount(t, h, h.acct.AppID); n != 2 {
		t.Fatalf("%d orders, want 2", n)
	}
	if n := h.idemCount("replayed"); n != 2 {
		t.Fatalf("%v replays counted, want 2", n)
	}
	if ttl := h.rdb.PTTL(context.Background(), idemKey(h.acct.AppID, "order-1")).Val(); ttl <= 0 || ttl > command.DefaultIdempotencyTTL {
		t.Fatalf("record ttl %v", ttl)
	}
}

// TestIdempotencyKeyBalancePaysOnce: a balance create retried with its
// Idempotency-Key (a client that lost the answer) is paid once.
func TestIdempotencyKeyBalancePaysOnce(t *testing.T) {
	h := newRedisHarness(t)
	if _, err := journaltest.Credit(context.Background(), h.rdb, h.acct.AppID, "USD", 300_00); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "balance", "USD"
	body := signed(p, h.acct.APIKey)
	first := h.post(body, command.HeaderIdempotencyKey, "pay-once")
	for range 3 {
		if r := h.post(body, command.HeaderIdempotencyKey, "pay-once"); r.Status != 200 || r.Raw != first.Raw {
			t.Fatalf("retry: %d %s, first %s", r.Status, r.Raw, first.Raw)
		}
	}
	wantBalance(t, h, "USD", 200_00)
	if n := orderCount(t, h, h.acct.AppID); n != 1 {
		t.Fatalf("%d orders, want 1", n)
	}
}

// TestIdempotencyKeyScope: the key is bound to its parameters, its route
// and its merchant.
func TestIdempotencyKeyScope(t *testing.T) {
	h := newRedisHarness(t)
	first := h.post(signed(h.baseParams(), h.acct.APIKey), command.HeaderIdempotencyKey, "k")
	if first.Status != 200 {
		t.Fatal(first.Raw)
	}
	other := h.baseParams()
	other["amount"] = "101"
	if r := h.post(signed(other, h.acct.APIKey), command.HeaderIdempotencyKey, "k"); r.Status != 409 || r.Body.Error != "idempotency_mismatch" {
		t.Fatalf("other amount: %d %s", r.Status, r.Raw)
	}
	cancel := signed(schema.Params{"appid": h.acct.AppID, "action": "cancel", "paymentId": first.Data(t)["paymentId"].(string)}, h.acct.APIKey)
	if r := h.postTo("/api/order/cancel", cancel, command.HeaderIdempotencyKey, "k"); r.Status != 409 || r.Body.Error != "idempotency_mismatch" {
		t.Fatalf("the key on another route: %d %s", r.Status, r.Raw)
	}
	if n := h.idemCount("mismatch"); n != 2 {
		t.Fatalf("%v mismatches counted, want 2", n)
	}
	b, err := h.accounts.Create(context.Background(), newAccount("shop b", true))
	if err != nil {
		t.Fatal(err)
	}
	pb := h.baseParams()
	pb["appid"] = b.AppID
	r := h.post(signed(pb, b.APIKey), command.HeaderIdempotencyKey, "k")
	if r.Status != 200 || r.Header.Get(HeaderIdempotentReplayed) != "" || r.Data(t)["paymentId"] == first.Data(t)["paymentId"] {
		t.Fatalf("merchant b with a's key: %d %s", r.Status, r.Raw)
	}
}

// TestIdempotencyKeyStoresOnlyDecided: only a proven merchant's decided
// answer is kept; a bad key is refused; no header, no record.
func TestIdempotencyKeyStoresOnlyDecided(t *testing.T) {
	h := newRedisHarness(t)
	good := signed(h.baseParams(), h.acct.APIKey)
	bad := signed(h.baseParams(), "not the key")
	unknown := signed(h.baseParams(), h.acct.APIKey)
	unknown["appid"] = "999999"
	balance := h.baseParams()
	balance["paymentMethod"], balance["currency"] = "balance", "USD"
	refusal := provider.ErrUnavailable
	tests := []struct {
		name   string
		body   schema.Params
		header []string
		setup  func()
		status int
		stored bool
	}{
		{"bad sign", bad, []string{command.HeaderIdempotencyKey, "a"}, nil, 401, false},
		{"unknown appid", unknown, []string{command.HeaderIdempotencyKey, "a"}, nil, 401, false},
		{"provider down (5xx)", good, []string{command.HeaderIdempotencyKey, "b"}, func() { h.prov.Fail.Store(&refusal) }, 503, false},
		{"insufficient balance (a decided 4xx)", signed(balance, h.acct.APIKey), []string{command.HeaderIdempotencyKey, "c"}, nil, 422, true},
		{"key too long", good, []string{command.HeaderIdempotencyKey, strings.Repeat("x", 256)}, nil, 400, false},
		{"key with a tab", good, []string{command.HeaderIdempotencyKey, "a\tb"}, nil, 400, false},
		{"key not ASCII", good, []string{command.HeaderIdempotencyKey, "clé"}, nil, 400, false},
		{"longest key", good, []string{command.HeaderIdempotencyKey, strings.Repeat("x", 255)}, nil, 200, true},
		{"no header", good, nil, nil, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
				defer h.prov.Fail.Store(nil)
			}
			r := h.post(tt.body, tt.header...)
			if r.Status != tt.status {
				t.Fatalf("status %d %s, want %d", r.Status, r.Raw, tt.status)
			}
			if strings.HasPrefix(tt.name, "key ") && !strings.Contains(r.Body.Msg, command.HeaderIdempotencyKey) {
				t.Fatalf("refused for another reason: %s", r.Raw)
			}
			keys, _ := h.rdb.Keys(context.Background(), "gw:*:idem:*").Result()
			want := 0
			if tt.stored {
				want = 1
			}
			if len(keys) != want {
				t.Fatalf("records %v, want %d", keys, want)
			}
			h.rdb.Del(context.Background(), keys...)
		})
	}
	// A 5xx frees the key: the retry executes for real.
	h.prov.Fail.Store(&refusal)
	if r := h.post(good, command.HeaderIdempotencyKey, "retry-5xx"); r.Status < 500 {
		t.Fatalf("want 5xx: %s", r.Raw)
	}
	h.prov.Fail.Store(nil)
	if r := h.post(good, command.HeaderIdempotencyKey, "retry-5xx"); r.Status != 200 || r.Header.Get(HeaderIdempotentReplayed) != "" {
		t.Fatalf("a retry after a 5xx must run: %d %s", r.Status, r.Raw)
	}
	// A decided 4xx stays the answer: crediting later does not change it.
	first := h.post(signed(balance, h.acct.APIKey), command.HeaderIdempotencyKey, "short")
	if _, err := journaltest.Credit(context.Background(), h.rdb, h.acct.AppID, "USD", 500_00); err != nil {
		t.Fatal(err)
	}
	if r := h.post(signed(balance, h.acct.APIKey), command.HeaderIdempotencyKey, "short"); r.Status != 422 || r.Raw != first.Raw {
		t.Fatalf("a stored 422 must replay: %d %s", r.Status, r.Raw)
	}
	// An unauthenticated call first does not take the key from the merchant.
	h.post(bad, command.HeaderIdempotencyKey, "mine")
	if h.idemStored(h.acct.AppID, "mine") {
		t.Fatal("a bad-sign call stored a record")
	}
	if r := h.post(good, command.HeaderIdempotencyKey, "mine"); r.Status != 200 || !h.idemStored(h.acct.AppID, "mine") {
		t.Fatalf("the merchant's own call: %d %s", r.Status, r.Raw)
	}
}

// TestIdempotencyKeyConcurrent: ten calls with one key create one order;
// each gets that order's answer (or, past the wait, in_progress).
func TestIdempotencyKeyConcurrent(t *testing.T) {
	h := newRedisHarness(t)
	body, _ := json.Marshal(signed(h.baseParams(), h.acct.APIKey))
	type answer struct {
		status int
		raw    string
		err    error
	}
	answers := make([]answer, 10)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest(http.MethodPost, "/api/createorder", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(command.HeaderIdempotencyKey, "same")
			res, err := h.app.Test(req, 10000)
			if err != nil {
				answers[i].err = err
				return
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			answers[i] = answer{status: res.StatusCode, raw: string(raw)}
		}()
	}
	wg.Wait()
	var ok string
	for _, a := range answers {
		switch {
		case a.err != nil:
			t.Fatal(a.err)
		case a.status == 200 && (ok == "" || a.raw == ok):
			ok = a.raw
		case a.status == 409 && strings.Contains(a.raw, "idempotency_in_progress"):
		default:
			t.Fatalf("answer %d %s (first 200: %s)", a.status, a.raw, ok)
		}
	}
	if n := orderCount(t, h, h.acct.AppID); n != 1 || ok == "" {
		t.Fatalf("%d orders, want 1 (answer %s)", n, ok)
	}
}

// TestIdempotencyKeyInProgress: a call that finds the key still claimed
// past its wait is told so, and nothing runs.
func TestIdempotencyKeyInProgress(t *testing.T) {
	h := newRedisHarness(t)
	p := signed(h.baseParams(), h.acct.APIKey)
	pending, _ := json.Marshal(command.IdempotencyRecord{Owner: "someone", Digest: paramsDigest("/api/createorder", p)})
	h.rdb.Set(context.Background(), idemKey(h.acct.AppID, "busy"), pending, 0)
	h.timeout = -1 // the call first waits the keys' whole wait, 5 s
	r := h.post(p, command.HeaderIdempotencyKey, "busy")
	if r.Status != 409 || r.Body.Error != string(platform.KindIdempotencyInProgress) {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if n := orderCount(t, h, h.acct.AppID); n != 0 {
		t.Fatalf("%d orders, want none", n)
	}
}

// TestIdempotencyKeyAbsentCostsNothing: without the header the wrapper
// only looks the header up: no allocation, no Redis call (h has none).
func TestIdempotencyKeyAbsentCostsNothing(t *testing.T) {
	uc := &command.UseCases{}
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	c.Request().Header.Set("Content-Type", "application/json")
	ran := 0
	wrapped := idempotent(uc, func(*fiber.Ctx) error { ran++; return nil })
	if n := testing.AllocsPerRun(100, func() { _ = wrapped(c) }); n != 0 {
		t.Fatalf("%v allocations per call without the header", n)
	}
	if ran == 0 {
		t.Fatal("the handler did not run")
	}
}
