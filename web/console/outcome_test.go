package console

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
)

// TestTimelineSaysWebhookOutcomes: the order page's webhook attempts say
// what happened as a person would (frame.Catalog.Outcome), never the
// dispatcher's "HTTP 0" shorthand.
func TestTimelineSaysWebhookOutcomes(t *testing.T) {
	e := newEnv(t)
	id := e.orders["paid"]
	o := e.store.get(id)
	e.store.mu.Lock()
	e.store.hooks[id+"/"+id] = []schema.WebhookAttempt{
		{At: schema.WireTime(o.CompletedAt), Attempt: 1, Error: "connection refused", LatencyMs: 3},
		{At: schema.WireTime(o.CompletedAt), Attempt: 2, Error: "timeout after 10s", LatencyMs: 10000},
		{At: schema.WireTime(o.CompletedAt), Attempt: 3, Status: 500, Error: "HTTP 500", Body: "oops"},
		{At: schema.WireTime(o.CompletedAt), Attempt: 4, Status: 200, Error: `response body is not "success"`, Body: "ok"},
		{At: schema.WireTime(o.CompletedAt), Attempt: 5, Manual: true, Status: 200, Body: "success", Success: true, LatencyMs: 42}}
	e.store.mu.Unlock()
	c, _ := e.session(t, access.RoleViewer)
	res, body := e.do(t, http.MethodGet, Base+"/orders/"+id, nil, c)
	body = html.UnescapeString(body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("order page: %d", res.StatusCode)
	}
	for _, want := range []string{
		"#1 · Could not connect (connection refused) · 3 ms",
		"#2 · No answer in time (gave up after 10s)",
		"#3 · Answered 500 instead of 200 with “success” · “oops”",
		"#4 · Answered 200 without “success”",
		"#5 (resend) · Delivered: answered “success” · 42 ms",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the timeline does not say %q", want)
		}
	}
	if strings.Contains(body, "HTTP 0") || strings.Contains(body, "connection refused ·") {
		t.Error("the timeline still shows the dispatcher's shorthand")
	}
}
