package console

import (
	"bufio"
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/frame"
	"github.com/paygate/gateway/web/orderview"
)

// exportTimeout bounds one export's stream, as the API's does.
const exportTimeout = 30 * time.Minute

// export streams the reporting export (the API's CSV, window by window) of
// the orders page's current filter; without dates it covers ExportRange
// back from now. A customer e-mail search is not an export filter.
func (c *Console) export(ctx *fiber.Ctx) error {
	s := frame.SessionOf(ctx)
	of, err := orderview.ParseForm(ctx, s.AppID)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if of.Query.CustomerEmail != "" {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "an e-mail search cannot be exported; filter by dates, status, method or currency"))
	}
	now := c.cfg.Now().UTC()
	rf := query.ReportFilter{AppID: strings.Clone(s.AppID), From: of.Query.From, To: of.Query.To, Method: of.Query.Method, Currency: of.Query.Currency,
		Status: of.Query.Status, ClientOrderID: of.Query.ClientOrderID, Refunded: of.Query.Refunded}
	if rf.To.IsZero() {
		rf.To = now.Truncate(time.Second).Add(time.Second)
	}
	if rf.From.IsZero() {
		rf.From = rf.To.Add(-c.cfg.ExportRange)
	}
	e, err := c.entry(ctx, "orders.export", "merchant:"+s.AppID, map[string]string{"status": of.Status, "method": of.Method,
		"currency": of.Currency, "until": rf.To.Format(time.RFC3339)})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	release, err := c.gate.Acquire(ctx.UserContext(), rf.AppID)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	streamCtx, cancel := context.WithTimeout(context.Background(), exportTimeout)
	first, rest, err := c.d.Reads.Reports.Export(streamCtx, rf)
	release()
	if err != nil {
		cancel()
		return c.ui.Fail(ctx, &platform.Error{Kind: platform.KindUnavailable, Msg: "reports are unavailable; retry later", Err: err})
	}
	if err := c.audited(ctx, e); err != nil {
		cancel()
		return c.ui.Fail(ctx, err)
	}
	ctx.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	ctx.Set(fiber.HeaderContentDisposition, `attachment; filename="orders-`+rf.From.Format("20060102")+`-`+rf.To.Format("20060102")+`.csv"`)
	ctx.Set(fiber.HeaderCacheControl, "no-store")
	ctx.Set("X-Content-Type-Options", "nosniff")
	log := c.log
	ctx.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		if err := query.WriteExportCSV(w, false, first, rest); err != nil {
			log.Warn("console export cut short", "appid", rf.AppID, "err", err)
		}
	})
	return nil
}
