package console

import (
	"cmp"
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
	"github.com/redis/go-redis/v9"
)

// session logs role's user in (no browser) and returns its cookie and form token.
func (e *env) session(t *testing.T, role access.Role) (*http.Cookie, string) {
	t.Helper()
	s := frametest.Session(t, e.acc, access.RealmMerchant, e.users[role], e.code(t, e.users[role]))
	return &http.Cookie{Name: CookieName, Value: s.ID}, s.CSRF
}

func (e *env) do(t *testing.T, method, path string, form url.Values, c *http.Cookie) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(e.base, Base)+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c != nil {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestOrdersSearchAndFilters(t *testing.T) {
	e := newEnv(t)
	c, _ := e.session(t, access.RoleViewer)
	failedAt, ok := schema.OrderIDTime(e.orders["failed"])
	if !ok {
		t.Fatalf("order id %q carries no time", e.orders["failed"])
	}
	failedDay := failedAt.UTC().Format("2006-01-02")
	for _, tc := range []struct {
		name, query string
		status      int
		want, not   []string
		location    string
	}{
		{"a paymentId goes to its order", "q=" + e.orders["paid"], http.StatusSeeOther, nil, nil, Base + "/orders/" + e.orders["paid"]},
		{"another merchant's paymentId is not found", "q=" + e.orders["theirs"], http.StatusOK, []string{"No order"}, []string{`data-id="` + e.orders["theirs"]}, ""},
		{"a clientOrderId", "q=co-open", http.StatusOK, []string{e.orders["open"]}, []string{e.orders["paid"]}, ""},
		{"a customer e-mail", "q=failed%40payer.test", http.StatusOK, []string{e.orders["failed"]}, []string{e.orders["open"]}, ""},
		{"status", "status=paid", http.StatusOK, []string{e.orders["paid"], e.orders["paid2"]}, []string{e.orders["open"], e.orders["theirs"]}, ""},
		// paid: 7.00 of 120.50 refunded; paid2 nothing.
		{"partially refunded", "status=partially_refunded", http.StatusOK,
			[]string{`data-id="` + e.orders["paid"], `data-badge="partially_refunded">Partially refunded<`, `<option value="partially_refunded" selected>`},
			[]string{`data-id="` + e.orders["paid2"], `data-id="` + e.orders["open"]}, ""},
		{"refunded", "status=refunded", http.StatusOK, []string{"data-empty"}, []string{`data-id="` + e.orders["paid"], `data-id="` + e.orders["paid2"]}, ""},
		{"a refunded order's badge among the paid", "status=paid", http.StatusOK,
			[]string{`data-badge="partially_refunded"`, `data-badge="paid">Paid<`}, nil, ""},
		{"method and currency", "method=bdcard&currency=USD", http.StatusOK, []string{e.orders["failed"], e.orders["paid2"]}, []string{e.orders["paid"]}, ""},
		// Methods by the payers' names (the deployment's, else the
		// checkout's), the code in a tooltip.
		{"method names", "", http.StatusOK, []string{`title="bdcard" data-method="bdcard">Visa / Mastercard<`, `title="wallet_a" data-method="wallet_a">Wallet A<`,
			`<option value="wallet_b">Wallet B</option>`}, []string{`>bdcard<`}, ""},
		// The failed order's own date (26 h ago; yesterday only after 02:00
		// UTC), paid2's two days back, never the same.
		{"dates", "from=" + failedDay + "&to=" + failedDay,
			http.StatusOK, []string{e.orders["failed"]}, []string{e.orders["paid2"]}, ""},
		{"an unknown status is refused", "status=lost", http.StatusBadRequest, []string{"unknown status"}, nil, ""},
		{"a bad date is refused", "from=yesterday", http.StatusBadRequest, []string{"from must be a date"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := e.do(t, http.MethodGet, Base+"/orders?"+tc.query, nil, c)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %.300s\n%s", res.StatusCode, tc.status, body, e.logs)
			}
			if tc.location != "" && res.Header.Get("Location") != tc.location {
				t.Errorf("to %q, want %q", res.Header.Get("Location"), tc.location)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page shows %q", n)
				}
			}
		})
	}
}

func TestPagination(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC()
	for i := range 30 {
		e.store.add(&schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: e.shop, Status: schema.StatusPaid, Method: "wallet_a",
			Amount: 100, Currency: "CNY", ClientOrderID: "bulk", CreatedAt: now.Add(-time.Duration(i) * time.Second)})
	}
	c, _ := e.session(t, access.RoleViewer)
	_, one := e.do(t, http.MethodGet, Base+"/orders?q=bulk", nil, c)
	_, two := e.do(t, http.MethodGet, Base+"/orders?q=bulk&page=2", nil, c)
	if n := strings.Count(one, "<tr data-id="); n != 25 || !strings.Contains(one, "1–25 of 30") || !strings.Contains(one, `rel="next"`) {
		t.Errorf("page 1: %d rows", n)
	}
	if n := strings.Count(two, "<tr data-id="); n != 5 || !strings.Contains(two, "26–30 of 30") || strings.Contains(two, `rel="next"`) {
		t.Errorf("page 2: %d rows", n)
	}
}

// TestExportDefusesTypedText: a description or clientOrderId a spreadsheet
// would run as a formula reaches the console's export behind a quote mark.
func TestExportDefusesTypedText(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC()
	typed := []struct{ description, clientOrderID string }{
		{`=HYPERLINK("http://x","y")`, "-2-3"},
		{"+1+cmd", "@SUM(A1)"},
	}
	for i, ty := range typed {
		e.store.add(&schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: e.shop, Status: schema.StatusFailed, Method: "wallet_a",
			Amount: 100, Currency: "CNY", Description: ty.description, ClientOrderID: ty.clientOrderID, CreatedAt: now.Add(-time.Duration(i) * time.Second)})
	}
	finance, _ := e.session(t, access.RoleFinance)
	res, body := e.do(t, http.MethodGet, Base+"/orders/export?status=failed", nil, finance)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %.300s", res.StatusCode, body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]bool{}
	for _, r := range rows[1:] {
		cells[r[6]], cells[r[7]] = true, true
	}
	for _, want := range []string{`'=HYPERLINK("http://x","y")`, "'-2-3", "'+1+cmd", "'@SUM(A1)"} {
		if !cells[want] {
			t.Errorf("no cell %q in the export: %q", want, rows)
		}
	}
}

func TestExportStreamsTheFilter(t *testing.T) {
	e := newEnv(t)
	finance, _ := e.session(t, access.RoleFinance)
	res, body := e.do(t, http.MethodGet, Base+"/orders/export?status=paid", nil, finance)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows[1:] {
		ids = append(ids, r[0])
	}
	if rows[0][0] != "paymentId" || len(ids) != 2 || !strings.Contains(strings.Join(ids, " "), e.orders["paid"]) || strings.Contains(body, e.orders["theirs"]) {
		t.Errorf("export rows %v", ids)
	}
	if !strings.Contains(e.auditLog(t), "orders.export merchant finance@shop.test") {
		t.Error("the export is not in the audit log")
	}
	viewer, _ := e.session(t, access.RoleViewer)
	if res, _ := e.do(t, http.MethodGet, Base+"/orders/export?status=paid", nil, viewer); res.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's export answered %d, want 403", res.StatusCode)
	}
}

func TestActionsAreAudited(t *testing.T) {
	e := newEnv(t)
	c, tok := e.session(t, access.RoleFinance)
	id := e.orders["paid"]
	res, _ := e.do(t, http.MethodPost, Base+"/orders/"+id+"/refund", url.Values{"csrf": {tok}, "amount": {"20.50"}, "reason": {"wrong size"}, "confirm": {"1"}}, c)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("refund answered %d", res.StatusCode)
	}
	log := e.auditLog(t)
	want := "order.refund merchant finance@shop.test finance order:" + id + " 127.0.0.1"
	if !strings.Contains(log, want) || !strings.Contains(log, `"reason":"wrong size"`) || !strings.Contains(log, `"amount":"20.50"`) {
		t.Errorf("audit log lacks %q with its reason and amount:\n%s", want, log)
	}
	if strings.Contains(log, tok) || strings.Contains(log, c.Value) {
		t.Error("the audit log holds the session's token or id")
	}
	if res, _ := e.do(t, http.MethodPost, Base+"/orders/"+e.orders["theirs"]+"/refund", url.Values{"csrf": {tok}, "reason": {"x"}, "confirm": {"1"}}, c); res.StatusCode != http.StatusNotFound {
		t.Errorf("a refund of another merchant's order answered %d, want 404", res.StatusCode)
	}
	if got := e.store.called(); len(got) != 1 {
		t.Errorf("command side asked %v, want the one refund", got)
	}
}

// auditLog is every entry of the log the console appends to, one a line:
// action realm email role target source details.
func (e *env) auditLog(t *testing.T) string {
	t.Helper()
	// The {audit} stream, and the shards' where a write's own script
	// appends its entry (a resend), in the order they were written.
	var msgs []redis.XMessage
	for _, tag := range append([]string{schema.AuditTag}, shardTags()...) {
		m, err := e.rdb.XRange(context.Background(), schema.AuditKey(tag), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m...)
	}
	slices.SortFunc(msgs, func(a, b redis.XMessage) int { return streamIDCmp(a.ID, b.ID) })
	var b strings.Builder
	for _, m := range msgs {
		v := func(k string) string { s, _ := m.Values[k].(string); return s }
		b.WriteString(strings.Join([]string{v("action"), v("realm"), v("email"), v("role"), v("target"), v("src"), v("details")}, " ") + "\n")
	}
	return b.String()
}

func TestWritesRefusedWithoutTheirPermission(t *testing.T) {
	e := newEnv(t)
	viewer, vtok := e.session(t, access.RoleViewer)
	dev, dtok := e.session(t, access.RoleDeveloper)
	for _, tc := range []struct {
		name   string
		c      *http.Cookie
		path   string
		form   url.Values
		status int
	}{
		{"viewer refund", viewer, "/orders/" + e.orders["paid"] + "/refund", url.Values{"csrf": {vtok}, "reason": {"r"}}, http.StatusForbidden},
		{"viewer cancel", viewer, "/orders/" + e.orders["open"] + "/cancel", url.Values{"csrf": {vtok}}, http.StatusForbidden},
		{"viewer resend", viewer, "/orders/" + e.orders["paid"] + "/resend", url.Values{"csrf": {vtok}}, http.StatusForbidden},
		{"viewer sandbox", viewer, "/orders/" + e.orders["sandbox"] + "/sandbox", url.Values{"csrf": {vtok}, "to": {"paid"}}, http.StatusForbidden},
		{"developer refund", dev, "/orders/" + e.orders["paid"] + "/refund", url.Values{"csrf": {dtok}, "reason": {"r"}}, http.StatusForbidden},
		{"developer cancel", dev, "/orders/" + e.orders["open"] + "/cancel", url.Values{"csrf": {dtok}}, http.StatusForbidden},
		{"developer drives a live order", dev, "/orders/" + e.orders["open"] + "/sandbox", url.Values{"csrf": {dtok}, "to": {"paid"}}, http.StatusForbidden},
		{"developer resends another merchant's webhook", dev, "/orders/" + e.orders["theirs"] + "/resend", url.Values{"csrf": {dtok}}, http.StatusNotFound},
		{"developer without the token", dev, "/orders/" + e.orders["paid"] + "/resend", url.Values{}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.store.called()
			res, _ := e.do(t, http.MethodPost, Base+tc.path, tc.form, tc.c)
			if res.StatusCode != tc.status {
				t.Errorf("answered %d, want %d", res.StatusCode, tc.status)
			}
			if got := e.store.called(); len(got) != len(before) {
				t.Errorf("the command side was asked %v", got[len(before):])
			}
		})
	}
	if log := e.auditLog(t); strings.Contains(log, "order.") {
		t.Errorf("refused writes in the audit log:\n%s", log)
	}
}

func shardTags() []string {
	var out []string
	for _, sh := range schema.AllShards() {
		out = append(out, sh.Tag())
	}
	return out
}

// streamIDCmp orders stream ids ("ms-seq") by time, then sequence.
func streamIDCmp(a, b string) int {
	num := func(id string) (uint64, uint64) {
		ms, seq, _ := strings.Cut(id, "-")
		m, _ := strconv.ParseUint(ms, 10, 64)
		q, _ := strconv.ParseUint(seq, 10, 64)
		return m, q
	}
	am, aq := num(a)
	bm, bq := num(b)
	return cmp.Or(cmp.Compare(am, bm), cmp.Compare(aq, bq))
}

// TestTimeZoneInConsole: times read in UTC until the person chooses a
// zone; then in theirs, offset written out and the zone in the tooltip,
// on every page (orders, an order, its timeline); a name that is not a
// zone is refused next to the field with what was typed kept.
func TestTimeZoneInConsole(t *testing.T) {
	e := newEnv(t)
	c, tok := e.session(t, access.RoleViewer)
	paid := e.store.get(e.orders["paid"])
	utc := paid.CreatedAt.UTC().Format("2006-01-02 15:04:05") + " UTC</time>"
	sh, _ := time.LoadLocation("Asia/Shanghai")
	local := paid.CreatedAt.In(sh).Format("2006-01-02 15:04:05") + " GMT+8</time>"
	pages := []string{Base + "/orders", Base + "/orders/" + paid.ID}
	look := func(want, not string) {
		t.Helper()
		for _, p := range pages {
			_, body := e.do(t, http.MethodGet, p, nil, c)
			if !strings.Contains(body, want) || strings.Contains(body, not) {
				t.Errorf("%s: has %q %v, has %q %v", p, want, strings.Contains(body, want), not, strings.Contains(body, not))
			}
		}
	}
	look(utc, local)
	res, body := e.do(t, http.MethodPost, Base+"/zone", url.Values{"csrf": {tok}, "zone": {"Mars/Olympus"}}, c)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="Mars/Olympus"`) || !strings.Contains(body, "data-problem") {
		t.Errorf("a bad zone answered %d: %.400s", res.StatusCode, body)
	}
	if res, _ := e.do(t, http.MethodPost, Base+"/zone", url.Values{"csrf": {tok}, "zone": {"Asia/Shanghai"}}, c); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setting a zone answered %d", res.StatusCode)
	}
	look(local, utc)
	_, body = e.do(t, http.MethodGet, Base+"/orders/"+paid.ID, nil, c)
	if !strings.Contains(body, `title="Asia/Shanghai"`) || !strings.Contains(body, "Time zone: Asia/Shanghai") {
		t.Errorf("the order page names no zone: %.300s", body)
	}
	if _, body := e.do(t, http.MethodGet, Base+"/orders", nil, c); !strings.Contains(body, "data-export-utc") && strings.Contains(body, "data-export") {
		t.Error("the export does not say it stays in UTC")
	}
}
