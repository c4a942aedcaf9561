package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
)

// eventsScenario is the endpoint events' drain: a backlog of events, each
// to its merchant's 3 webhook endpoints, delivered by a gateway with only
// the dispatcher role.
type eventsScenario struct{ *bench }

// The drain's shape: merchants, endpoints each, receiver ports.
const (
	eventMerchants = 100
	eventEndpoints = 3
	eventPorts     = 32
)

type eventsReport struct {
	Events         int     `json:"events"`
	Endpoints      int     `json:"endpoints_per_merchant"`
	Deliveries     int     `json:"deliveries"`
	Got            int     `json:"delivered"`
	Repeats        int     `json:"repeats"`
	PerS           float64 `json:"events_per_s"`
	DeliveriesPerS float64 `json:"deliveries_per_s"`
	Seconds        float64 `json:"seconds"`
}

// runEventsBacklog schedules cfg.Events events (their merchants' endpoints
// on a loopback receiver) straight into Redis, as the fan-out would, then
// starts a dispatcher and times the receiver from its first arrival to its
// last.
func (b eventsScenario) runEventsBacklog(ctx context.Context) error {
	er := &eventsReport{Events: b.cfg.Events, Endpoints: eventEndpoints, Deliveries: b.cfg.Events * eventEndpoints}
	b.rep.Events = er
	rcv, err := newEventReceiver(eventPorts)
	if err != nil {
		return err
	}
	defer rcv.close()
	store, err := events.NewStore(events.Defaults(), b.rdb, dispatcher.NewDestinations(true), nil, nil)
	if err != nil {
		return err
	}
	eps := make([][]events.Endpoint, eventMerchants)
	for m := range eventMerchants {
		appid := "bench-ev-" + strconv.Itoa(m)
		for k := range eventEndpoints {
			ep, err := store.Add(ctx, events.Endpoint{AppID: appid, URL: rcv.url(m*eventEndpoints + k)},
				audit.Entry{At: time.Now(), ActorID: "gwbench", Realm: audit.RealmCLI, Source: "gwbench"})
			if err != nil {
				return err
			}
			eps[m] = append(eps[m], ep)
		}
	}
	if err := b.scheduleEvents(ctx, store, eps); err != nil {
		return err
	}
	webhookScenario{b.bench}.startDispatcherAtEnd(ctx)
	start := time.Now()
	d, err := startGateway(ctx, b.cfg, "gateway-events", "dispatcher")
	if err != nil {
		return err
	}
	defer d.stop()
	ph := b.startPhase("endpoint events backlog", d)
	deadline := start.Add(time.Minute + time.Duration(er.Deliveries/500)*time.Second)
	for rcv.count() < er.Deliveries && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	ph.stop()
	got, first, last, reps := rcv.stats()
	er.Got, er.Repeats = got, reps
	if got < 2 {
		return fmt.Errorf("the dispatcher delivered %d of %d endpoint events", got, er.Deliveries)
	}
	er.Seconds = last.Sub(first).Seconds()
	er.DeliveriesPerS = float64(got) / er.Seconds
	er.PerS = er.DeliveriesPerS / eventEndpoints
	b.logf("endpoint events: %d of %d deliveries in %.2f s = %.0f events/s (%.0f deliveries/s, %d repeats; first after %.2f s)",
		got, er.Deliveries, er.Seconds, er.PerS, er.DeliveriesPerS, reps, first.Sub(start).Seconds())
	return nil
}

// scheduleEvents schedules the backlog, 16 merchants' events at a time.
func (b eventsScenario) scheduleEvents(ctx context.Context, store *events.Store, eps [][]events.Endpoint) error {
	ed, err := dispatcher.NewEventDeliveries(dispatcher.Defaults(), b.rdb, store, nil, nil)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	sem := make(chan struct{}, 16)
	for i := range b.cfg.Events {
		m := i % eventMerchants
		ev, err := events.New(events.OrderPaid, "gwbench:"+strconv.Itoa(i), time.Now(), map[string]int{"n": i})
		if err != nil {
			return err
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := ed.ScheduleEvent(ctx, "bench-ev-"+strconv.Itoa(m), ev, "order:"+strconv.Itoa(i), eps[m]); err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// eventsTarget names the drain's row in the targets table.
const eventsTarget = "endpoint events drained (3 endpoints each)"

// eventsRow is the drain's row of the results table.
func (r *report) eventsRow(p func(string, ...any)) {
	if e := r.Events; e != nil && e.Got > 0 {
		p("| dispatcher | endpoint events/s draining %d queued events, %d endpoints each on %d receiver ports | %s (%d of %d deliveries, %s; %d repeats) | %s |",
			e.Events, e.Endpoints, eventPorts, rate(e.PerS), e.Got, e.Deliveries, rate(e.DeliveriesPerS), e.Repeats, r.mark(eventsTarget))
	}
}

// eventReceiver is the endpoints: each (webhook-id, path) counted once,
// answered 204.
type eventReceiver struct {
	mu          sync.Mutex
	seen        map[string]struct{}
	reps        int
	first, last time.Time
	srvs        []*fasthttp.Server
	addrs       []string
}

func newEventReceiver(ports int) (*eventReceiver, error) {
	r := &eventReceiver{seen: map[string]struct{}{}}
	for range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			r.close()
			return nil, fmt.Errorf("event receiver: %w", err)
		}
		// Connections outlive the dispatcher client's idle time: a server
		// closing one first fails the next attempt on it.
		srv := &fasthttp.Server{Handler: r.handle, Concurrency: 4096, IdleTimeout: 2 * time.Minute, CloseOnShutdown: true}
		go func() { _ = srv.Serve(ln) }()
		r.srvs = append(r.srvs, srv)
		r.addrs = append(r.addrs, ln.Addr().String())
	}
	return r, nil
}

func (r *eventReceiver) handle(c *fasthttp.RequestCtx) {
	now := time.Now()
	k := string(c.Request.Header.Peek("webhook-id")) + string(c.Path())
	r.mu.Lock()
	if _, ok := r.seen[k]; ok {
		r.reps++
	} else {
		r.seen[k] = struct{}{}
	}
	if r.first.IsZero() {
		r.first = now
	}
	r.last = now
	r.mu.Unlock()
	c.SetStatusCode(fasthttp.StatusNoContent)
}

func (r *eventReceiver) url(i int) string {
	return fmt.Sprintf("http://%s/ep%d", r.addrs[i%len(r.addrs)], i)
}

func (r *eventReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *eventReceiver) stats() (int, time.Time, time.Time, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen), r.first, r.last, r.reps
}

func (r *eventReceiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, s := range r.srvs {
		_ = s.ShutdownWithContext(ctx)
	}
}
