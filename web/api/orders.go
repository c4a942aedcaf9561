package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/server"
)

// Orders serves GET /api/order: the merchant's admission, the action's
// parameters, then the action (query.Orders).
func Orders(q *query.Orders) fiber.Handler {
	return func(c *fiber.Ctx) error {
		action := c.Query("action")
		acct, err := q.Admit(c.UserContext(), c.Query("appid"), c.Query("key"), action)
		if err != nil {
			return err
		}
		if err := query.UnknownParam(action, queryNames(c)); err != nil {
			return err
		}
		ctx := c.UserContext()
		var data any
		switch action {
		case "order":
			data, err = q.Order(ctx, acct, c)
		case "orders":
			data, err = q.List(ctx, acct, c)
		case "webhooks":
			data, err = q.Webhooks(ctx, acct, c)
		case "summary":
			data, err = q.Summary(ctx, acct, c)
		case "timeseries":
			data, err = q.Timeseries(ctx, acct, c)
		default:
			return export(c, q, acct)
		}
		if err != nil {
			return err
		}
		return server.OK(c, data)
	}
}

// queryNames are the request's query parameter names, copied.
func queryNames(c *fiber.Ctx) []string {
	var names []string
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) { names = append(names, string(k)) })
	return names
}
