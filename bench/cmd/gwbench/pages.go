package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/bench/loadgen"
)

// The payer pages' two hot addresses, measured over the live orders the
// createorder phases made (select orders: the page is the method choice).
// Each request asks for a different order, as runOrder does, so that no
// cache of one order flatters the figures. All load comes from one client
// address, so the bench gateway lifts the per-IP pages limit (gatewayEnv).

// pageOrders is how many of createorder's orders the page phases cycle
// through, the same bound as action=order's.
const pageOrders = 200_000

// runStatus measures GET /payment/{id}/status, which every open page polls.
func (b readScenario) runStatus(ctx context.Context, gw *server, run *createRun) error {
	ids, err := liveIDs(run)
	if err != nil {
		return err
	}
	t := &loadgen.Get{URIs: pageURIs(ids, "/status")}
	pr, err := b.runPair(ctx, "status poll", gw, t, checkStatus)
	b.rep.Status = pr
	if err != nil {
		return err
	}
	b.profileRead(ctx, "status poll", gw, t, checkStatus)
	res, err := b.closed(ctx, "status poll, own address each", gw, perAddress(t.URIs), b.cfg.ShortPhase, checkStatus)
	b.rep.StatusPerIP = &res
	return err
}

// perAddress sends each request from a client address of its own (the
// gateway trusts the generator's X-Forwarded-For, see gatewayEnv), as
// payers polling from their own networks do: every request then finds no
// lease of its address's pages limit and fetches one from Redis.
func perAddress(uris []string) loadgen.TargetFunc {
	xff := make([]string, len(uris))
	for i := range xff {
		xff[i] = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	}
	return func(i int, req *fasthttp.Request) bool {
		req.Header.SetMethod(fasthttp.MethodGet)
		req.SetRequestURI(uris[i%len(uris)])
		req.Header.Set(fasthttp.HeaderXForwardedFor, xff[i%len(xff)])
		return true
	}
}

// runPage measures GET /payment/{id}: the select page rendered.
func (b readScenario) runPage(ctx context.Context, gw *server, run *createRun) error {
	ids, err := liveIDs(run)
	if err != nil {
		return err
	}
	t := &loadgen.Get{URIs: pageURIs(ids, "")}
	pr, err := b.runPair(ctx, "payment page", gw, t, checkPage)
	b.rep.Page = pr
	if err == nil {
		b.profileRead(ctx, "payment page", gw, t, checkPage)
	}
	return err
}

// profileRead runs an extra max phase of a read under perf when the run
// profiles, so the figures above are not measured with perf attached.
func (b readScenario) profileRead(ctx context.Context, name string, gw *server, t loadgen.Target, check func(*loadgen.Response) error) {
	if !b.cfg.Perf {
		return
	}
	rec := b.perfPhase(ctx, name, gw, b.cfg.ShortPhase+warmup(b.cfg.ShortPhase))
	if _, err := b.closed(ctx, name+" under perf", gw, t, b.cfg.ShortPhase, check); err != nil {
		b.note("%s under perf: %v", name, err)
	}
	b.perfDone(ctx, rec, name)
}

func liveIDs(run *createRun) ([]string, error) {
	ids := compact(run.ids)
	if len(ids) == 0 {
		return nil, errors.New("no orders to show: createorder created none")
	}
	return ids[:min(len(ids), pageOrders)], nil
}

// pageURIs are /payment/{id}<suffix> of ids.
func pageURIs(ids []string, suffix string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "/payment/" + url.PathEscape(id) + suffix
	}
	return out
}

var (
	statusPrefix = []byte(`{"status":`)
	statusNext   = []byte(`,"next":`)
	// selectForm is the method choice's radio buttons: on the select page
	// only, never on the error page.
	selectForm = []byte(`name="paymentMethod"`)
)

// checkStatus accepts a 200 with the status JSON object.
func checkStatus(r *loadgen.Response) error {
	if r.Status != fasthttp.StatusOK {
		return fmt.Errorf("status %d: %.80s", r.Status, r.Body)
	}
	if !bytes.HasPrefix(r.Body, statusPrefix) || !bytes.HasSuffix(r.Body, []byte("}")) || !bytes.Contains(r.Body, statusNext) {
		return fmt.Errorf("not a status object: %.80s", r.Body)
	}
	return nil
}

// checkPage accepts a 200 HTML page with the select step's form.
func checkPage(r *loadgen.Response) error {
	if r.Status != fasthttp.StatusOK {
		return fmt.Errorf("status %d", r.Status)
	}
	if !bytes.Contains(r.Body, selectForm) {
		return fmt.Errorf("not the select page: %.120s", r.Body)
	}
	return nil
}
