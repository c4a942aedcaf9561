package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// metricsURL is where the server under test serves /metrics: its
// operations listener, the only one that does. The one place that knows,
// so a move of /metrics changes one line.
func metricsURL(s *server) string { return s.ops + "/metrics" }

// mixedMethods is one order of every method, in a currency it takes.
var mixedMethods = []struct{ method, currency string }{
	{"wallet_a", "CNY"}, {"wallet_b", "CNY"}, {"cryptohost", "USD"}, {"bdcard", "BDT"}, {"bdpsp_a", "USD"},
	{"bdpsp_b", "BDT"}, {"fiatpsp", "USD"}, {"cryptopsp", "USD"}, {"usdt_direct", "USD"}, {"balance", "USD"},
	{"select", "USD"},
}

// TestMetricsAfterMixedTraffic is a scrape after ordinary traffic (a label
// that aliased a reused buffer once broke /metrics):
// every method created and paid through the sandbox driver (each family's
// simulator notifies us), the payer pages and status polls in en and zh,
// forged provider notifications, a refund, errors; then /metrics answers
// 200, promtool finds nothing, and every label value of every gateway_*
// series is one docs/metrics.md documents. Before the notification handler
// copied c.Params("family"), the provider label read pieces of later
// request paths here (and /metrics answered 500 once two of them
// collided).
func TestMetricsAfterMixedTraffic(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	hooks := newHookReceiver(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--callback", hooks.url, "--json")
	e.cli(nil, "merchant", "credit", shop.AppID, "--currency", "USD", "--amount", "500.00", "--json")
	e.cli(nil, "fx", "set", "USD", "BDT", "121.50", "--json")
	s := e.serve()
	payer := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) {
		t.Helper()
		res, err := payer.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}

	var paid []string
	for round := range 3 {
		for _, m := range mixedMethods {
			p := createParams(shop.AppID)
			p["paymentMethod"], p["currency"] = m.method, m.currency
			r := s.create(t, p, shop.APIKey)
			if r.Status != 200 {
				t.Fatalf("create %s: %s", m.method, r.Raw)
			}
			id := r.Data["paymentId"].(string)
			for _, lang := range []string{"", "/en", "/zh"} {
				get(lang + "/payment/" + url.PathEscape(id))
				get(lang + "/payment/" + url.PathEscape(id) + "/status")
			}
			if m.method == "balance" {
				continue // paid at creation
			}
			if m.method == "usdt_direct" && round == 0 {
				// A form action nobody offers is counted as usdt_invalid,
				// not under a label the form chose.
				pc := newPayerClient(t, s.base)
				path := "/payment/" + url.PathEscape(id) + "/usdt-direct"
				pc.post(path, url.Values{"csrf": {pc.token(path)}, "action": {"made-up-" + id}})
			}
			if round == 2 {
				_ = s.sandbox(t, shop.AppID, shop.QueryKey, id, "fail")
				continue
			}
			if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
				t.Fatalf("sandbox pay %s: %s", m.method, r.Raw)
			}
			paid = append(paid, id)
			// Forged notifications of the family: refused, counted by verdict.
			res, err := http.PostForm(s.base+"/sandbox/gatewaynotification/"+m.method+"/notify", url.Values{"out_trade_no": {id}, "sign": {"forged"}})
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
	}
	if len(paid) == 0 {
		t.Fatal("nothing paid")
	}
	refund := s.signedPost(t, "/api/order/refund", schema.Params{"appid": shop.AppID, "action": "refund", "paymentId": paid[0],
		"amount": "10.00", "clientRefundId": "M-R-1", "reason": "returned"}, shop.APIKey, "")
	if refund.Status != 200 {
		t.Fatalf("refund: %s", refund.Raw)
	}
	// Errors of several kinds, and paths no route knows.
	bad := createParams(shop.AppID)
	bad["amount"] = "-1"
	s.create(t, bad, shop.APIKey)
	s.create(t, createParams(shop.AppID), "not the key")
	get("/payment/NOSUCHORDER")
	get("/zh/payment/NOSUCHORDER/status")
	get("/no/such/page/" + strings.Repeat("x", 40))
	s.order(t, shop.AppID, shop.QueryKey, "NOSUCHORDER")
	s.list(t, shop.AppID, shop.QueryKey, "limit=5")
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return hooks.got(paid[len(paid)-1]).Get("status") == "2" })

	body := scrapeMetrics(t, s)
	checkLabelsDocumented(t, body, documentedLabels(t))
	// The families paid above are counted under their own names.
	for _, m := range []string{"wallet_a", "wallet_b", "cryptohost", "bdcard", "bdpsp_a", "bdpsp_b"} {
		if !strings.Contains(body, `gateway_provider_notifications_total{provider="`+m+`",verdict="applied"}`) {
			t.Errorf("no applied notification of %s counted", m)
		}
	}
}

// scrapeMetrics reads /metrics, which must answer 200 and satisfy
// `promtool check metrics` (a missing promtool fails under CI=true).
func scrapeMetrics(t *testing.T, s *server) string {
	t.Helper()
	res, err := http.Get(metricsURL(s))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/metrics answered %d:\n%.3000s", res.StatusCode, raw)
	}
	cmd := exec.Command(testenv.Tool(t, "promtool"), "check", "metrics")
	cmd.Stdin = bytes.NewReader(raw)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	return string(raw)
}

// labelRule is what docs/metrics.md allows as one label's values: a list,
// or a pattern for the open-ended ones (route patterns, status codes).
type labelRule struct {
	values  map[string]bool
	pattern *regexp.Regexp
}

func (r labelRule) allows(v string) bool {
	return r.values[v] || (r.pattern != nil && r.pattern.MatchString(v))
}

// labelPatterns are the open-ended kinds of value docs/metrics.md names.
var labelPatterns = map[string]*regexp.Regexp{
	// A route as registered: fixed segments and :parameters, never a
	// parameter's value.
	"route pattern": regexp.MustCompile(`^(unmatched|/|(/([A-Za-z0-9_.-]+|:[A-Za-z]+|\*))+)$`),
	"HTTP status":   regexp.MustCompile(`^[1-5][0-9][0-9]$`),
	// A channel's ref (channel.Ref.String): ids are checked at start,
	// at most GATEWAY_CHANNELS_MAX per method.
	"channel ref":   regexp.MustCompile(`^(sandbox\.)?[a-z_]+\.[a-z0-9][a-z0-9_-]{0,31}$`),
	"currency code": regexp.MustCompile(`^[A-Z]{3,5}$`),
}

// documentedLabels reads the table of docs/metrics.md: metric, label, and
// its values (backquoted, comma-separated) or an open-ended kind.
func documentedLabels(t *testing.T) map[string]labelRule {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `(gateway_[a-z_]+)` \\| `([a-z_]+)` \\| (.+) \\|$")
	value := regexp.MustCompile("`([^`]*)`")
	out := map[string]labelRule{}
	for _, line := range strings.Split(string(raw), "\n") {
		m := row.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		r := labelRule{values: map[string]bool{}}
		cell := strings.TrimSpace(m[3])
		if p, ok := labelPatterns[strings.Trim(cell, "* ")]; ok {
			r.pattern = p
		}
		for _, v := range value.FindAllStringSubmatch(cell, -1) {
			r.values[v[1]] = true
		}
		out[m[1]+"/"+m[2]] = r
	}
	if len(out) < 20 {
		t.Fatalf("docs/metrics.md documents only %d labels", len(out))
	}
	return out
}

// seriesLine is one sample line of the text format: name{labels} value.
var seriesLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$`)

// labelPair is one name="value" of a sample line; values are unescaped.
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// checkLabelsDocumented fails on every gateway_* series whose label is not
// documented, or whose value is not one of the label's documented values.
func checkLabelsDocumented(t *testing.T, body string, doc map[string]labelRule) {
	t.Helper()
	bad := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		m := seriesLine.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[1], "gateway_") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_sum"), "_count")
		for _, lp := range labelPair.FindAllStringSubmatch(m[2], -1) {
			if lp[1] == "le" || lp[1] == "quantile" {
				continue
			}
			v := strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n").Replace(lp[2])
			rule, ok := doc[name+"/"+lp[1]]
			if !ok {
				rule, ok = doc[m[1]+"/"+lp[1]]
			}
			switch {
			case !ok:
				bad[name+": label "+lp[1]+" is not in docs/metrics.md"] = true
			case !rule.allows(v):
				bad[name+`: `+lp[1]+`="`+v+`" is not a documented value`] = true
			}
		}
	}
	keys := make([]string, 0, len(bad))
	for k := range bad {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Error(k)
	}
}
