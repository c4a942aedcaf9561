package admin

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
	"github.com/paygate/gateway/schema"
)

// reconDay is the statements' day; reconCh the channel they are of.
var reconDay = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

const reconCh = "wallet_a.default"

func newRecon(t *testing.T, rdb *redis.Client, ch driver.Conn, j *journal.Journal, logs *audit.Log) *operator.Reconciliation {
	t.Helper()
	r, err := operator.NewReconciliation(operator.ReconDefaults(), families.NewImporter(ch, rdb, j, nil), j, rdb, testChannels{}, logs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reconPayments posts n paid wallet_a payments of reconDay (cost 0.6%) of
// the env's merchant and projects them into ClickHouse, where an import
// reads them.
func reconPayments(t *testing.T, e *env, n int) []*schema.Order {
	t.Helper()
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var orders []*schema.Order
	for i := range n {
		paid := reconDay.Add(time.Duration(i+1) * time.Hour)
		o := &schema.Order{ID: schema.NewOrderID(paid.Add(-time.Minute), schema.Shard(i%schema.NumShards)), AppID: e.appid,
			Amount: schema.Amount(10000 + 100*i), Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusPaid, Fee: "100:0:0:0",
			Cost: "60:0:0:0", ProviderRef: "WA" + string(rune('A'+i)), CreatedAt: paid.Add(-time.Minute), UpdatedAt: paid, CompletedAt: paid, Version: 3}
		tx, err := journal.PaymentTx(o, merchant.DefaultTerms(), journal.Source(o), true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Post(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	fixture.ProjectJournal(t, e.rdb, e.ch)
	fixture.InsertOrders(t, e.ch, orders)
	return orders
}

// statementOf is the provider's statement of orders in the simulator's
// shape (wallet_a's CSV, CRLF) behind a BOM, as a spreadsheet saves it,
// each row first changed by plant.
func statementOf(t *testing.T, orders []*schema.Order, plant func(i int, r *statement.Row)) []byte {
	t.Helper()
	b := bytes.NewBufferString("\ufeff")
	err := statement.Write(b, walleta.StatementShape, func(y func(statement.Row) bool) {
		for i, o := range orders {
			p, err := journal.Price(o)
			if err != nil {
				t.Fatal(err)
			}
			r := statement.Row{Ref: o.ProviderRef, Order: o.ID, Currency: o.Currency, Account: walleta.SandboxAppID,
				Amount: int64(o.Amount), Fee: int64(p.Cost), At: o.CompletedAt}
			if plant != nil {
				plant(i, &r)
			}
			if !y(r) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload is the import form as a browser sends it (file nil: none chosen).
func upload(s *access.Session, csrf string, fields map[string]string, file []byte) *http.Request {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("csrf", csrf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if file != nil {
		f, _ := w.CreateFormFile("file", "statement.csv")
		_, _ = f.Write(file)
	}
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, Prefix+reconPath, &b)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.AddCookie(&http.Cookie{Name: "gw_admin", Value: s.ID})
	return req
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func owed(t *testing.T, e *env) schema.Amount {
	t.Helper()
	j, _ := journal.New(journal.Config{}, e.rdb, nil, nil)
	r, err := j.Receivables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return -r[reconCh]["CNY"]
}

func netOf(t *testing.T, o *schema.Order) schema.Amount {
	t.Helper()
	p, err := journal.Price(o)
	if err != nil {
		t.Fatal(err)
	}
	return o.Amount - p.Cost
}

// TestReconImportPage: the admin imports a statement in the simulator's
// shape with one planted difference (an amount): the page reports four
// matched and the difference with its evidence, the receivable falls by the
// matched lines' net and the page shows it; the same file again changes
// nothing (receivable, exceptions) and the page says it was imported before.
func TestReconImportPage(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	orders := reconPayments(t, e, 5)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	var total schema.Amount
	for _, o := range orders {
		total += netOf(t, o)
	}
	if got := owed(t, e); got != total {
		t.Fatalf("owed before the statement %s, want %s", got, total)
	}
	file := statementOf(t, orders, func(i int, r *statement.Row) {
		if i == 2 {
			r.Amount -= 100 // the provider settled 1.00 less
		}
	})
	fields := map[string]string{"channel": reconCh, "day": "2026-11-27"}
	res := e.do(t, upload(admin, admin.CSRF, fields, file))
	page := body(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "data-fresh") {
		t.Fatalf("import: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{`data-kind="matched"><td>Matched</td><td class="num">4<`, `data-kind="amount_differs"><td>Amount differs</td><td class="num">1<`,
		`data-kind="missing_at_provider"><td>Missing at the provider</td><td class="num">0<`, `data-finding="amount_differs"`,
		"statement row 4: 101.00 CNY, payment " + orders[2].ID + ": 102.00 CNY", `href="/admin/exceptions?kind=reconciliation"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	left := netOf(t, orders[2])
	if got := owed(t, e); got != left {
		t.Fatalf("owed after the import %s, want the planted line's net %s", got, left)
	}
	if !strings.Contains(page, `data-owed>`+left.String()+`<`) || !strings.Contains(page, `data-cleared>`+(total-left).String()+` CNY<`) {
		t.Errorf("the page does not show the receivable %s and the cleared %s", left, total-left)
	}
	q := recon.NewRedisQueue(e.rdb)
	if raised, err := q.Newest(context.Background(), 100); err != nil || len(raised) != 1 {
		t.Fatalf("exceptions after the import: %d %v", len(raised), err)
	}
	res = e.do(t, upload(admin, admin.CSRF, fields, file))
	page = body(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "data-again") || !strings.Contains(page, "imported before: nothing changed") {
		t.Fatalf("the same file again: %d\n%s", res.StatusCode, page)
	}
	if got := owed(t, e); got != left {
		t.Fatalf("owed after the same file again %s, want %s", got, left)
	}
	if raised, _ := q.Newest(context.Background(), 100); len(raised) != 1 {
		t.Fatalf("the same file again raised %d exceptions, want the same 1", len(raised))
	}
	if p := body(t, e.do(t, get(Prefix+reconPath, admin))); !strings.Contains(p, `data-owed>`+left.String()+`<`) {
		t.Fatal("the page does not show what the provider still owes")
	}
}

// TestReconImportRefused: support and the auditor are refused (403) before
// the form is read, a file included or not; a statement the parser refuses
// (a row of another provider account, a negative amount, a bad row behind a
// BOM and CRLF, a line of another day), no file or a channel not
// configured here is shown on the page with what is wrong (400, not a
// 500). None changes Redis.
func TestReconImportRefused(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { journaltest.Check(t, e.rdb) })
	orders := reconPayments(t, e, 3)
	good := statementOf(t, orders, nil)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	sam := e.session(t, access.RealmOperator, "sam@ops.test")
	al := e.session(t, access.RealmOperator, "al@ops.test")
	fields := map[string]string{"channel": reconCh, "day": "2026-11-27"}
	planted := func(plant func(i int, r *statement.Row)) []byte { return statementOf(t, orders, plant) }
	tests := []struct {
		name   string
		s      *access.Session
		fields map[string]string
		file   []byte
		status int
		says   string
	}{
		{"support", sam, fields, good, http.StatusForbidden, "may not"},
		{"the auditor", al, fields, good, http.StatusForbidden, "may not"},
		{"the auditor without a file", al, fields, nil, http.StatusForbidden, "may not"},
		{"a row of another provider account", admin, fields, planted(func(i int, r *statement.Row) {
			if i == 1 {
				r.Account = "2099000000000000"
			}
		}), http.StatusBadRequest, "row 3"},
		{"a negative amount", admin, fields, bytes.Replace(good, []byte(","+orders[0].Amount.String()+","), []byte(",-"+orders[0].Amount.String()+","), 1),
			http.StatusBadRequest, "negative"},
		{"a bad row behind a BOM and CRLF", admin, fields, append(append([]byte{}, good...), "WAX,PX,1.0.0,CNY,0.00,1.00,2026-11-27 01:00:00,x\r\n"...),
			http.StatusBadRequest, "row 5"},
		{"a line of another day", admin, map[string]string{"channel": reconCh, "day": "2026-11-26"}, good, http.StatusBadRequest, "outside the day"},
		{"no file", admin, fields, nil, http.StatusBadRequest, "choose the statement file"},
		{"a channel not configured here", admin, map[string]string{"channel": "wallet_a.elsewhere", "day": "2026-11-27"}, good,
			http.StatusBadRequest, "not configured here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.state(t)
			res := e.do(t, upload(tt.s, tt.s.CSRF, tt.fields, tt.file))
			page := body(t, res)
			if res.StatusCode != tt.status || !strings.Contains(page, tt.says) {
				t.Fatalf("status %d, want %d saying %q:\n%s", res.StatusCode, tt.status, tt.says, page)
			}
			if tt.status == http.StatusBadRequest && !strings.Contains(page, "data-recon-problem") {
				t.Fatal("the refusal is not shown on the Reconciliation page")
			}
			if e.state(t) != before {
				t.Fatal("a refused import changed Redis")
			}
		})
	}
	for _, s := range []*access.Session{sam, al} {
		p := body(t, e.do(t, get(Prefix+reconPath, s)))
		if strings.Contains(p, "data-recon-import") || !strings.Contains(p, "data-read-only") || !strings.Contains(p, "data-receivables") {
			t.Fatalf("%s: the import form is offered or the receivables are missing", s.Role)
		}
	}
}

// TestStatementUploadBound: a statement past the console's 1 MiB request
// bound reaches the import (here refused by the parser for its long line,
// on the page), while the same body to any other form, or not as a file
// upload, is refused whole (413) before it is read; a CSV of bank
// references has its own bound, past a form's.
func TestStatementUploadBound(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	big := bytes.Repeat([]byte("x"), 2<<20)
	req := upload(admin, admin.CSRF, map[string]string{"channel": reconCh, "day": "2026-11-27"}, big)
	if res := e.do(t, req); res.StatusCode != http.StatusBadRequest || !strings.Contains(body(t, res), "line too long") {
		t.Fatalf("a 2 MiB statement: %d, want the parser's refusal", res.StatusCode)
	}
	refs := upload(admin, admin.CSRF, nil, bytes.Repeat([]byte("x"), 200<<10))
	refs.URL.Path = Prefix + refsPath
	refs.RequestURI = refs.URL.Path
	if tooLarge(t, e, refs) {
		t.Fatal("a 200 KiB CSV of bank references, within its use case's bound, was refused whole")
	}
	other := upload(admin, admin.CSRF, nil, big)
	other.URL.Path = Prefix + "/payouts/references"
	other.RequestURI = other.URL.Path
	if !tooLarge(t, e, other) {
		t.Fatal("2 MiB to another form was read")
	}
	plain := post(Prefix+reconPath, admin, map[string][]string{"csrf": {admin.CSRF}, "file": {string(big)}})
	if !tooLarge(t, e, plain) {
		t.Fatal("2 MiB not as a file upload was read")
	}
}

// tooLarge: fasthttp refused req's body (413, and app.Test's error).
func tooLarge(t *testing.T, e *env, req *http.Request) bool {
	t.Helper()
	res, err := e.app.Test(req, -1)
	if err != nil {
		return strings.Contains(err.Error(), "body size exceeds")
	}
	return res.StatusCode == http.StatusRequestEntityTooLarge
}

// TestPayoutsPageStatesTheCheckerWindow: the operators' Payouts page says
// the maker-checker window configured, not a default written into a
// sentence.
func TestPayoutsPageStatesTheCheckerWindow(t *testing.T) {
	e := newEnv(t)
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	res := e.do(t, get(Prefix+"/payouts", admin))
	if b := body(t, res); res.StatusCode != http.StatusOK || !strings.Contains(b, "in the last 12 hours") {
		t.Fatalf("payouts page %d does not state the 12 h window", res.StatusCode)
	}
}
