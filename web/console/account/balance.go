package account

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/selfservice"
)

// balanceData is the Balance page.
type balanceData struct {
	Balances []selfservice.CurrencyBalance
	Ledger   []merchant.LedgerEntry
	Next     string // the cursor of the next (older) page, "" on the last
	Paged    bool   // this is not the first page
}

// ledgerPage is how many ledger entries a page shows.
const ledgerPage = 50

// balance shows the balances per currency and the ledger, newest first.
func (h handlers) balance(c *fiber.Ctx) error {
	w := h.ui.Actor(c)
	v := h.ui.View(c, "desk_balance_title")
	bal, err := h.p.svc.Balance.Balances(c.UserContext(), w)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	before := query(c, "before")
	entries, err := h.p.svc.Balance.Ledger(c.UserContext(), w, before, ledgerPage)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	d := balanceData{Balances: bal, Ledger: entries, Paged: before != ""}
	if len(entries) == ledgerPage {
		d.Next = entries[len(entries)-1].ID
	}
	v.Data = d
	return h.ui.Render(c, "desk_balance", v)
}
