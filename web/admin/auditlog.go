package admin

import (
	"bufio"
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
)

type auditData struct {
	F          audit.Filter
	From, To   string
	Page       *audit.Page
	Pager      frame.Pager
	Query      string // the filter as a query string, for the export link and paging
	Unsearched bool   // no ClickHouse in this process
}

// filter reads the search form: actor, target, action (exact or "prefix."),
// from and to (dates or date-times, UTC), page.
func filter(ctx *fiber.Ctx) (audit.Filter, string, string, error) {
	f := audit.Filter{Actor: query(ctx, "actor"), Target: query(ctx, "target"), Action: query(ctx, "action")}
	from, to := query(ctx, "from"), query(ctx, "to")
	var err error
	if f.From, err = parseWhen(from); err != nil {
		return f, from, to, err
	}
	if f.To, err = parseWhen(to); err != nil {
		return f, from, to, err
	}
	if p := query(ctx, "page"); p != "" {
		if f.Page, err = strconv.Atoi(p); err != nil || f.Page < 1 {
			return f, from, to, platform.Errorf(platform.KindInvalidParameter, "page must be a number from 1")
		}
	}
	return f, from, to, nil
}

func parseWhen(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, platform.Errorf(platform.KindInvalidParameter, "a time is YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)")
}

func (c *Console) auditLog(ctx *fiber.Ctx) error {
	f, from, to, err := filter(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d := auditData{F: f, From: from, To: to, Query: string(ctx.Request().URI().QueryString()), Unsearched: c.d.Audit == nil}
	if c.d.Audit != nil {
		if d.Page, err = c.d.Audit.Search(ctx.UserContext(), f); err != nil {
			return c.ui.Fail(ctx, badFilter(err))
		}
		q, _ := url.ParseQuery(d.Query)
		d.Pager = frame.NewPager(Prefix+"/audit", q, d.Page.Page, d.Page.Limit, int(d.Page.Total)).Showing(len(d.Page.Rows))
	}
	return c.page(ctx, "audit", "title_audit", d)
}

// auditCSV streams the search's every row as CSV.
func (c *Console) auditCSV(ctx *fiber.Ctx) error {
	f, _, _, err := filter(ctx)
	if err != nil || c.d.Audit == nil {
		return c.ui.Fail(ctx, cmpErr(err, platform.Errorf(platform.KindUnavailable, "the audit log is searched on a process with ClickHouse")))
	}
	ctx.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	ctx.Set(fiber.HeaderContentDisposition, `attachment; filename="audit.csv"`)
	ctx.Set(fiber.HeaderCacheControl, "no-store")
	search, uc := c.d.Audit, context.WithoutCancel(ctx.UserContext())
	ctx.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		_ = search.ExportCSV(uc, f, w)
		_ = w.Flush()
	})
	return nil
}

// badFilter shows a filter the search refused as the person's mistake.
func badFilter(err error) error {
	if errors.Is(err, audit.ErrBadFilter) {
		return platform.Errorf(platform.KindInvalidParameter, "%v", err)
	}
	return err
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
