package account

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
	statements "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// balanceEnv is the console over a ClickHouse holding the journal's copy:
// the shop's ledger mix (last 3 days) and the other merchant's, projected.
func balanceEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	e := newEnvStatements(t, nil, statements.NewStatements(ch))
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := e.now.Truncate(24*time.Hour).AddDate(0, 0, -3)
	fixture.PostLedgerMix(t, j, e.shop.AppID, day)
	fixture.PostLedgerMix(t, j, e.other.AppID, day)
	// A settlement still due, for the next-settlement line.
	due := journal.DueMove{Kind: journal.KindSettlement, AppID: e.shop.AppID, Ref: "Pnext", Currency: "USD", Amount: 48_40}
	e.rdb.ZAdd(ctx, schema.SettleDueKey(schema.HomeShard(e.shop.AppID)), redis.Z{Score: float64(e.now.Add(20 * time.Hour).UnixMilli()), Member: due.String()})
	fixture.ProjectJournal(t, e.rdb, ch)
	journaltest.Check(t, e.rdb)
	return e
}

// TestBalancePageInBrowserEveryRole: every merchant role reads the Balance
// page whole (balances by bucket, the next settlement, transactions with
// gross, fee and net, the daily statement) with nothing to submit but the
// statement's dates, and it is accessible; the owner's page is clean at
// 360 and 1280 px. The statement's CSV downloads for every role.
func TestBalancePageInBrowserEveryRole(t *testing.T) {
	e := balanceEnv(t)
	b := browser.New(t)
	for _, role := range []access.Role{access.RoleOwner, access.RoleDeveloper, access.RoleFinance, access.RoleViewer} {
		t.Run(string(role), func(t *testing.T) {
			email := "browser-" + string(role) + "@shop.test"
			secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: role}, e.now)
			pg := b.NewPage(browser.Wide)
			frametest.Login(t, pg, e.url, email, frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))
			pg.Go(e.url + "/balance")
			if pg.LastStatus() != http.StatusOK || has(pg, "main form[method=post]") {
				t.Fatalf("%d, a form that posts: %v", pg.LastStatus(), has(pg, "main form[method=post]"))
			}
			checks := []struct{ sel, want string }{
				{`[data-balances] tr[data-currency="USD"]`, "145.85"},
				{`[data-balances] tr[data-currency="EUR"]`, "26.93"},
				{"[data-next-settlement]", "48.40 USD"},
				{"[data-transactions]", "100.00 USD"},
				{"[data-transactions]", "3.20"},
				{"[data-transactions]", "96.80"},
				{"[data-statement]", "145.05"},
			}
			for _, c := range checks {
				if got := pg.Text(c.sel); !strings.Contains(got, c.want) {
					t.Fatalf("%s: %q lacks %q", c.sel, got, c.want)
				}
			}
			if strings.Contains(pg.Text("main"), e.other.AppID+"-1") {
				t.Fatal("the other merchant's top-up shows")
			}
			if role == access.RoleOwner {
				shoot(t, pg, "balance")
			} else {
				pg.SetWidth(browser.Narrow)
				pg.Look().CheckA11y(t, "balance-"+string(role))
				pg.Look().Screenshot("console-balance-" + string(role))
			}
			csv := e.do(e.person(role), http.MethodGet, "/balance/statement.csv", nil)
			body, _ := io.ReadAll(csv.Body)
			if csv.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), strings.Join(statements.StatementCSVHeader, ",")) ||
				!strings.Contains(string(body), ",USD,0.00,150.00,4.95,") {
				t.Fatalf("statement CSV %d:\n%s", csv.StatusCode, body)
			}
		})
	}
}
