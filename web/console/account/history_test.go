package account

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
)

// post sends a form with the session's CSRF token and returns the status
// and the page.
func (e *env) post(s *access.Session, path string, vals url.Values) (int, string) {
	e.t.Helper()
	vals.Set("csrf", s.CSRF)
	res := e.do(s, http.MethodPost, path, vals)
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, html.UnescapeString(string(b))
}

// TestSignatureDebuggerReadsTheJSONBody: the body a merchant posts to
// createorder is signed as the API reads it (a number as sent, null
// absent, sign and sign_type out), name=value lines still work, and a body
// that is not a flat JSON object is said so next to the field, the input
// kept.
func TestSignatureDebuggerReadsTheJSONBody(t *testing.T) {
	e := newEnv(t)
	dev := e.person(access.RoleDeveloper)
	app := e.shop.AppID
	for _, tc := range []struct {
		name, params, want string
	}{
		{"json body", `{"appid":"` + app + `","amount":100,"currency":"USD","note":null,"sign":"x","sign_type":"MD5"}`,
			"amount=100&appid=" + app + "&currency=USD{key}"},
		{"json body after blank lines", "\n  {\"amount\": 7.50, \"appid\": \"" + app + "\"}\n", "amount=7.50&appid=" + app + "{key}"},
		{"name=value lines", "appid=" + app + "\namount=100\ncurrency=USD", "amount=100&appid=" + app + "&currency=USD{key}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, page := e.post(dev, "/developers/signature", url.Values{"endpoint": {"other"}, "params": {tc.params}})
			if code != http.StatusOK || !strings.Contains(page, "<code data-signed>"+tc.want+"</code>") {
				t.Fatalf("%d: want the signed string %q in\n%s", code, tc.want, page)
			}
		})
	}
	for _, bad := range []string{`{"amount":{"value":1}}`, `{"amount":1`, `{"amount":1,"amount":2}`} {
		code, page := e.post(dev, "/developers/signature", url.Values{"endpoint": {"other"}, "params": {bad}})
		if code != http.StatusOK || !strings.Contains(page, "data-params-error") || !strings.Contains(page, bad) ||
			strings.Contains(page, "data-signed") {
			t.Fatalf("%q: %d, want the field's error with the input kept and no result\n%s", bad, code, page)
		}
	}
}

// delivery stores a paid delivery of appid's order in state st as the
// dispatcher's scripts leave one: in the merchant's history (and, unless
// delivered, in its index of deliveries not delivered), with its attempts
// and the clientOrderId the create indexed.
func (e *env) delivery(appid, st, clientOrderID string, attempts ...string) string {
	e.t.Helper()
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	shard := schema.RandomShard()
	id := schema.NewOrderID(at, shard)
	_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.WebhookKey(shard, id), "st", st, "n", len(attempts), "url", "https://shop.example/hook",
			"host", "shop.example:443", "appid", appid, "p", "amount=12.50&clientOrderId="+clientOrderID+"&paymentId="+id, "paid", at.UnixMilli())
		z := redis.Z{Score: float64(at.UnixMilli()), Member: id}
		p.ZAdd(ctx, schema.WebhookMerchantAllKey(shard, appid), z)
		if st != "delivered" {
			p.ZAdd(ctx, schema.WebhookMerchantKey(shard, appid), z)
		}
		for _, a := range attempts {
			p.RPush(ctx, schema.WebhookLogKey(shard, id), a)
		}
		p.HSet(ctx, schema.ClientOrdersKey(shard, appid), clientOrderID, schema.PackOrderID(id))
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

// TestWebhooksPageListsEveryDelivery: delivered deliveries are listed
// beside failing ones, each with the body we sent and its attempts said as
// a person would; q finds one order by payment id or clientOrderId, state
// narrows; another merchant's order is never found.
func TestWebhooksPageListsEveryDelivery(t *testing.T) {
	e := newEnv(t)
	viewer := e.person(access.RoleViewer)
	at := schema.WireTime(time.Now().Add(-time.Hour))
	ok := e.delivery(e.shop.AppID, "delivered", "shop-1",
		`{"at":"`+at+`","attempt":1,"status":200,"body":"success","latencyMs":87,"success":true}`)
	dead := e.delivery(e.shop.AppID, "dead", "shop-2",
		`{"at":"`+at+`","attempt":1,"status":0,"error":"connection refused","body":"","latencyMs":2}`,
		`{"at":"`+at+`","attempt":2,"status":500,"error":"HTTP 500","body":"upstream down","latencyMs":31}`)
	theirs := e.delivery(e.other.AppID, "delivered", "their-1")
	for _, tt := range []struct {
		name, path string
		want, not  []string
	}{
		{"every delivery", "/webhooks", []string{ok, dead}, []string{theirs}},
		{"delivered", "/webhooks?state=delivered", []string{ok}, []string{dead}},
		{"dead", "/webhooks?state=dead", []string{dead}, []string{ok}},
		{"by payment id", "/webhooks?q=" + dead, []string{dead}, []string{ok}},
		{"by clientOrderId", "/webhooks?q=shop-1", []string{ok}, []string{dead}},
		{"another merchant's payment id", "/webhooks?q=" + theirs, nil, []string{theirs, ok, dead}},
		{"another merchant's clientOrderId", "/webhooks?q=their-1", nil, []string{theirs, ok, dead}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, page := e.page(viewer, tt.path)
			if code != http.StatusOK {
				t.Fatalf("%d", code)
			}
			for _, id := range tt.want {
				if !strings.Contains(page, `data-delivery="`+id+`"`) {
					t.Errorf("%s not listed", id)
				}
			}
			for _, id := range tt.not {
				if strings.Contains(page, `data-delivery="`+id+`"`) {
					t.Errorf("%s listed", id)
				}
			}
		})
	}
	_, page := e.page(viewer, "/webhooks?q="+dead)
	page = html.UnescapeString(page)
	for _, want := range []string{
		"amount=12.50&clientOrderId=shop-2&paymentId=" + dead, // the body we sent
		"Could not connect (connection refused)", "2 ms",      // the first attempt, its timing
		"Answered 500 instead of 200 with “success”", "31 ms", "upstream down", // the last, its answer
		"<details open>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the searched delivery does not show %q", want)
		}
	}
	if strings.Contains(page, "HTTP 0") {
		t.Error("an attempt without an answer reads HTTP 0")
	}
}

// TestTestEventAlwaysOffered: whoever may send a test event sees the
// button on the Webhooks and Developers pages; without a default callback
// URL it is disabled with the hint saying what to do; a role that may not
// send one is not offered it.
func TestTestEventAlwaysOffered(t *testing.T) {
	e := newEnv(t)
	owner, viewer := e.person(access.RoleOwner), e.person(access.RoleViewer)
	enabled := regexp.MustCompile(`<button type="submit" class="btn secondary">Send a test event</button>`)
	disabled := regexp.MustCompile(`<button type="submit" class="btn secondary" disabled aria-describedby="test-hint">Send a test event</button>\s*<p class="hint" id="test-hint" data-test-hint>`)
	for _, path := range []string{"/webhooks", "/developers"} {
		if _, page := e.page(owner, path); !enabled.MatchString(page) || disabled.MatchString(page) {
			t.Fatalf("%s with a callback URL: the test event is not offered\n%s", path, page)
		}
		if _, page := e.page(viewer, path); strings.Contains(page, "data-test-event") {
			t.Fatalf("%s: a viewer is offered the test event", path)
		}
	}
	if code, _ := e.post(owner, "/developers/callback", url.Values{"callback": {""}}); code != http.StatusSeeOther {
		t.Fatalf("clear the callback: %d", code)
	}
	for _, path := range []string{"/webhooks", "/developers"} {
		if _, page := e.page(owner, path); !disabled.MatchString(page) {
			t.Fatalf("%s without a callback URL: the test event is not shown disabled with its hint\n%s", path, page)
		}
	}
}
