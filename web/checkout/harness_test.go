package checkout

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

type harness struct {
	app    *fiber.App
	orders *fakeOrders
	payers *fakePayers
	pages  *Pages
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ips, err := platform.NewClientIP(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.PublicURL, cfg.CSRFKey = "http://127.0.0.1:8080", []byte(strings.Repeat("k", 32))
	h := &harness{orders: newFakeOrders(), payers: &fakePayers{balances: map[string]schema.Amount{"USD": 50000}}}
	h.pages, err = New(cfg, Deps{Orders: allPorts(h.orders), Payers: h.payers, ClientIP: ips, Merchants: fakeMerchants{}}, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h.app = fiber.New(fiber.Config{ErrorHandler: server.ErrorHandler(slog.New(slog.DiscardHandler))})
	h.pages.Register(h.app)
	h.app.Post("/api/fiatpsp/confirm", func(c *fiber.Ctx) error { return c.SendString("json api") })
	return h
}

type response struct {
	code    int
	body    string
	header  http.Header
	cookies []*http.Cookie
}

func (h *harness) do(t *testing.T, req *http.Request) response {
	t.Helper()
	res, err := h.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: res.StatusCode, body: string(b), header: res.Header, cookies: res.Cookies()}
}

func (h *harness) get(t *testing.T, path string) response {
	t.Helper()
	return h.do(t, httptest.NewRequest(http.MethodGet, path, nil))
}

// post sends a form; with a token, it carries the CSRF cookie and token a
// page would have given.
func (h *harness) post(t *testing.T, path string, form url.Values, withToken bool) response {
	t.Helper()
	if withToken {
		form.Set("csrf", h.pages.csrfToken(strings.Repeat("s", 43)))
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: strings.Repeat("s", 43)})
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: "tok-payer"})
	return h.do(t, req)
}

func order(id string, mut ...func(*schema.Order)) schema.Order {
	o := schema.Order{ID: id, AppID: "m1", Amount: 12345, Currency: "USD", Method: schema.MethodWalletA,
		Status: schema.StatusReady, Lang: "en", Sandbox: true, CustomerEmail: "payer@example.com",
		ClientOrderID: "shop-1", NotifyURL: "http://merchant.example/notify"}
	for _, m := range mut {
		m(&o)
	}
	return o
}

// checkPage asserts what every page must be: our CSP with this response's
// nonce on every script, and no inline code.
func checkPage(t *testing.T, r response) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`script-src 'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
	if m == nil || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self'") {
		t.Fatalf("CSP %q is not ours", csp)
	}
	for _, tag := range scriptTag.FindAllString(r.body, -1) {
		if !strings.Contains(tag, `nonce="`+m[1]+`"`) || !strings.Contains(tag, `src="/checkout/assets/`) {
			t.Errorf("script tag %s: want our asset with nonce %s", tag, m[1])
		}
	}
	if inlineHandler.MatchString(r.body) {
		t.Errorf("inline event handler in page: %s", inlineHandler.FindString(r.body))
	}
	if strings.Contains(r.body, "http://") || strings.Contains(r.body, "https://") {
		for _, u := range regexp.MustCompile(`(src|href)="https?://[^"]*"`).FindAllString(r.body, -1) {
			if !strings.Contains(u, "merchant.example") && !strings.Contains(u, "provider.example") && !strings.Contains(u, "127.0.0.1:1/sim") {
				t.Errorf("asset from another host: %s", u)
			}
		}
	}
}
