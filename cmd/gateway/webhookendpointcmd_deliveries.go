package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/web/api"
)

// engine is the delivery engine, or the reason the CLI cannot ask it.
func (c endpointCLI) engine(ctx context.Context) (events.Endpoint, error) {
	ep, err := c.st.Get(ctx, c.appid, c.id)
	if err != nil {
		return events.Endpoint{}, err
	}
	if c.deliveries == nil {
		return events.Endpoint{}, events.ErrNoDeliveries
	}
	return ep, nil
}

func (c endpointCLI) test(ctx context.Context) error {
	ep, err := c.engine(ctx)
	if err != nil {
		return err
	}
	d, err := c.deliveries.SendTest(ctx, c.appid, ep)
	if err != nil {
		return err
	}
	e := c.e
	e.Action, e.Details = events.ActionTest, map[string]string{"ref": d.ID}
	if err := c.st.Record(ctx, ep, e); err != nil {
		return err
	}
	return c.out.value(api.ViewDelivery(d))
}

func (c endpointCLI) replay(ctx context.Context) error {
	since, err := time.Parse(time.RFC3339, *c.f.since)
	if err != nil {
		return fmt.Errorf("--since must be an RFC 3339 time such as 2026-11-28T09:00:00Z")
	}
	ep, err := c.st.Get(ctx, c.appid, c.id)
	if err != nil {
		return err
	}
	if err := events.CheckReplaySince(ep, since, time.Now()); err != nil {
		return err
	}
	if _, err := c.engine(ctx); err != nil {
		return err
	}
	n, err := c.deliveries.ReplaySince(ctx, c.appid, ep, since)
	if err != nil {
		return err
	}
	e := c.e
	e.Action, e.Details = events.ActionReplay, map[string]string{"note": "since " + since.UTC().Format(time.RFC3339), "count": strconv.Itoa(n)}
	if err := c.st.Record(ctx, ep, e); err != nil {
		return err
	}
	return c.out.value(map[string]any{"queued": n, "since": since.UTC().Format(time.RFC3339)})
}

func (c endpointCLI) listDeliveries(ctx context.Context) error {
	if *c.f.limit < 1 || *c.f.limit > 100 {
		return fmt.Errorf("--limit is 1 to 100")
	}
	var before int64
	if *c.f.before != "" {
		b, err := strconv.ParseInt(*c.f.before, 10, 64)
		if err != nil || b <= 0 {
			return fmt.Errorf("--before is the cursor a page printed")
		}
		before = b
	}
	if _, err := c.engine(ctx); err != nil {
		return err
	}
	ds, next, err := c.deliveries.Deliveries(ctx, c.appid, c.id, before, *c.f.limit)
	if err != nil {
		return err
	}
	page := api.DeliveriesView{Deliveries: make([]api.DeliveryView, 0, len(ds))}
	if next > 0 {
		page.NextCursor = strconv.FormatInt(next, 10)
	}
	for _, d := range ds {
		page.Deliveries = append(page.Deliveries, api.ViewDelivery(d))
	}
	if c.out.json {
		return c.out.value(page)
	}
	if len(ds) == 0 {
		return noRows(c.out.w, "deliveries", "")
	}
	tw := tabwriter.NewWriter(c.out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tTYPE\tSTATE\tATTEMPTS\tLAST\tID")
	for _, d := range page.Deliveries {
		last := "—"
		if n := len(d.Attempts); n > 0 {
			last = d.Attempts[n-1].Outcome
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", d.Created, d.Type, d.State, len(d.Attempts), last, d.ID)
	}
	if page.NextCursor != "" {
		fmt.Fprintf(tw, "\nmore: --before %s\n", page.NextCursor)
	}
	return tw.Flush()
}
