package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/server"
)

// Balance serves GET /api/balance: the merchant's admission (appid and
// query key, as GET /api/order), then its balances per currency, or with
// action=transactions a page of its transactions.
func Balance(b *query.Balances) fiber.Handler {
	return func(c *fiber.Ctx) error {
		action := c.Query("action")
		acct, err := b.Admit(c.UserContext(), c.Query("appid"), c.Query("key"), action, queryNames(c))
		if err != nil {
			return err
		}
		var data any
		if action == "transactions" {
			data, err = b.Transactions(c.UserContext(), acct, c)
		} else {
			data, err = b.Balance(c.UserContext(), acct)
		}
		if err != nil {
			return err
		}
		return server.OK(c, data)
	}
}
