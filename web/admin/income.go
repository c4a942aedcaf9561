package admin

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	ledgerq "github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// incomeData is the Fee income page.
type incomeData struct {
	From, To    string // UTC days, both shown
	Rows        []ledgerq.IncomeRow
	Totals      []incomeTotal // per currency, over the range
	Unavailable bool          // no ClickHouse in this process
}

// incomeTotal is the range's fee income in one currency.
type incomeTotal struct {
	Currency string
	Fees     schema.Amount
}

// incomeDefault is the range when the request names none: the last 30
// days, today included.
const incomeDefault = 30

// income shows the platform's fee income by day, kind, method and
// currency: read only, for every operator role.
func (c *Console) income(ctx *fiber.Ctx) error {
	today := c.now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, 1-incomeDefault), today
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := query(ctx, p.name); v != "" {
			t, err := time.Parse(time.DateOnly, v)
			if err != nil {
				return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "%s must be a date such as 2026-11-01", p.name))
			}
			*p.t = t
		}
	}
	if to.Before(from) || to.Sub(from) > ledgerq.MaxStatementRange-24*time.Hour {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "the range is 1 to 400 days, from before to"))
	}
	d := incomeData{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Unavailable: c.d.Income == nil}
	if c.d.Income != nil {
		rows, err := c.d.Income.FeeIncome(ctx.UserContext(), from, to.AddDate(0, 0, 1))
		if err != nil {
			return c.ui.Fail(ctx, &platform.Error{Kind: platform.KindUnavailable, Msg: "fee income is unavailable; retry later", Err: err})
		}
		d.Rows, d.Totals = rows, incomeTotals(rows)
	}
	return c.page(ctx, "income", "title_income", d)
}

// incomeTotals sums rows per currency, in currency order.
func incomeTotals(rows []ledgerq.IncomeRow) []incomeTotal {
	var out []incomeTotal
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Currency]
		if !ok {
			i = len(out)
			at[r.Currency] = i
			out = append(out, incomeTotal{Currency: r.Currency})
		}
		out[i].Fees += r.Fees
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Currency < out[j-1].Currency; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
