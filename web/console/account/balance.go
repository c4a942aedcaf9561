package account

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	statements "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/selfservice"
)

// balanceData is the Balance page.
type balanceData struct {
	Overview       selfservice.BalanceOverview
	Transactions   statements.TxPage
	Paged          bool // this is not the newest page of transactions
	Statement      []statements.StatementDay
	From, To       string // the statement's days, YYYY-MM-DD
	StatementQuery string // from=…&to=…, for the links
	Unavailable    bool   // no ClickHouse answered: balances only
}

// txPage is how many transactions a page shows.
const txPage = 25

// statementDefault is the statement's range when the request names none:
// the last 30 days, today included.
const statementDefault = 30

// balance shows the balances, the next settlement, the transactions and
// the daily statement. Nothing on it changes money; every role reads it.
func (h handlers) balance(c *fiber.Ctx) error {
	w := h.ui.Actor(c)
	v := h.ui.View(c, "desk_balance_title")
	ov, err := h.p.svc.Balance.Overview(c.UserContext(), w)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	from, to, err := h.statementRange(c)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	cursor := query(c, "cursor")
	d := balanceData{Overview: ov, Paged: cursor != "", From: from.Format(time.DateOnly), To: to.Format(time.DateOnly)}
	d.StatementQuery = url.Values{"from": {d.From}, "to": {d.To}}.Encode()
	d.Transactions, err = h.p.svc.Balance.Transactions(c.UserContext(), w, cursor, txPage)
	if err == nil {
		d.Statement, err = h.p.svc.Balance.Statement(c.UserContext(), w, from, to)
	}
	if err != nil {
		if platform.KindOf(err) != platform.KindUnavailable {
			return h.ui.Fail(c, err)
		}
		d.Unavailable = true
	}
	v.Data = d
	return h.ui.Render(c, "desk_balance", v)
}

// statementCSV downloads the statement of the page's days as CSV.
func (h handlers) statementCSV(c *fiber.Ctx) error {
	from, to, err := h.statementRange(c)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	days, err := h.p.svc.Balance.Statement(c.UserContext(), h.ui.Actor(c), from, to)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="statement-`+from.Format("20060102")+`-`+to.Format("20060102")+`.csv"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Type("csv", "utf-8")
	return statements.WriteStatementCSV(c, days)
}

// statementRange reads from and to (UTC days, both shown); absent, the
// last statementDefault days.
func (h handlers) statementRange(c *fiber.Ctx) (time.Time, time.Time, error) {
	today := h.p.now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, 1-statementDefault), today
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := query(c, p.name); v != "" {
			t, err := time.Parse(time.DateOnly, v)
			if err != nil {
				return time.Time{}, time.Time{}, platform.Errorf(platform.KindInvalidParameter, "%s must be a date such as 2026-11-01", p.name)
			}
			*p.t = t
		}
	}
	return from, to, nil
}
