package api

import (
	"bufio"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/query"
)

// export serves action=export (query.Orders.Export): the CSV streams after
// the handler returns, gzip-compressed when the client accepts it.
func export(c *fiber.Ctx, q *query.Orders, acct *merchant.Account) error {
	gz := strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip")
	s, err := q.Export(c.UserContext(), acct, c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="orders-`+s.From.Format("20060102T150405Z")+`-`+s.To.Format("20060102T150405Z")+`.csv"`)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if gz {
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) { s.Write(w, gz) })
	return nil
}
