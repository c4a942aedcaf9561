package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
)

// The events-dispatcher-kill9 scenario's burst: objects, events about
// each (in order), and endpoints of its merchant (each gets every event).
const (
	chaosEventObjects   = 300
	chaosEventsPerObj   = 3
	chaosEventEndpoints = 3
)

// eventsChaos is the endpoint-events scenario's seeding, receiver and
// audit over a cluster.
type eventsChaos struct{ *Cluster }

// eventsRun is what the scenario left for its audit.
type eventsRun struct {
	recv      *eventReceiver
	app       string
	kills     int
	scheduled int
}

// eventsKill9 gives a merchant of its own three endpoints on a receiver of
// the scenario's, schedules a burst of events (three in order about each of
// 300 orders, to every endpoint) over half the hold, and meanwhile kills
// the dispatchers with SIGKILL in turn every fraction of a second,
// restarting each.
func eventsKill9(ctx context.Context, c *Cluster, hold time.Duration) error {
	ec := eventsChaos{c}
	run, eps, err := ec.seed(ctx)
	if err != nil {
		return fmt.Errorf("events: seed: %w", err)
	}
	c.events = run
	burst := make(chan error, 1)
	go func() { burst <- ec.burst(ctx, run, eps, hold/2) }()
	disp := []*Proc{c.Proc("disp1"), c.Proc("disp2")}
	end := time.Now().Add(hold)
	for i := 0; time.Now().Before(end); i++ {
		if err := sleep(ctx, time.Duration(300+rand.IntN(700))*time.Millisecond); err != nil {
			return err
		}
		p := disp[i%len(disp)]
		p.Kill9()
		run.kills++
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		if err := p.Start(ctx); err != nil {
			return err
		}
	}
	return <-burst
}

// seed makes the merchant, the receiver and the endpoints.
func (c eventsChaos) seed(ctx context.Context) (*eventsRun, []events.Endpoint, error) {
	var acct Account
	if err := c.cli(ctx, &acct, "", "merchant", "create", "--name", "chaos events", "--sandbox", "--json"); err != nil {
		return nil, nil, err
	}
	recv, err := newEventReceiver()
	if err != nil {
		return nil, nil, err
	}
	store, err := events.NewStore(events.Defaults(), c.rdb, dispatcher.NewDestinations(true), nil, nil)
	if err != nil {
		return nil, nil, err
	}
	var eps []events.Endpoint
	for i := range chaosEventEndpoints {
		ep, err := store.Add(ctx, events.Endpoint{AppID: acct.AppID, URL: recv.url + "/ep" + strconv.Itoa(i)},
			audit.Entry{At: time.Now(), ActorID: "chaos", Realm: audit.RealmCLI, Source: "chaos"})
		if err != nil {
			return nil, nil, err
		}
		eps = append(eps, ep)
	}
	return &eventsRun{recv: recv, app: acct.AppID}, eps, nil
}

// eventSeq is an event's data: which object, and its place among the
// object's events.
type eventSeq struct {
	Object int `json:"object"`
	Seq    int `json:"seq"`
}

// burst schedules every event, object by object in order, spread over d.
func (c eventsChaos) burst(ctx context.Context, run *eventsRun, eps []events.Endpoint, d time.Duration) error {
	ed, err := dispatcher.NewEventDeliveries(dispatcher.Defaults(), c.rdb, noEndpoints{}, nil, nil)
	if err != nil {
		return err
	}
	types := []events.Type{events.OrderPaid, events.OrderRefunded, events.OrderRefunded}
	pause := d / chaosEventObjects
	for o := range chaosEventObjects {
		for k := range chaosEventsPerObj {
			ev, err := events.New(types[k], fmt.Sprintf("chaos:%d:%d", o, k), time.Now(), eventSeq{Object: o, Seq: k})
			if err != nil {
				return err
			}
			if err := ed.ScheduleEvent(ctx, run.app, ev, "order:"+strconv.Itoa(o), eps); err != nil {
				return err
			}
			run.scheduled++
		}
		if err := sleep(ctx, pause); err != nil {
			return err
		}
	}
	return nil
}

// noEndpoints: the burst only schedules; it never reads an endpoint.
type noEndpoints struct{}

func (noEndpoints) Get(context.Context, string, string) (events.Endpoint, error) {
	return events.Endpoint{}, fmt.Errorf("not read")
}
func (noEndpoints) List(context.Context, string) ([]events.Endpoint, error) { return nil, nil }
func (noEndpoints) Disable(context.Context, string, string, string) (events.Endpoint, error) {
	return events.Endpoint{}, fmt.Errorf("not disabled")
}

// eventsAudit: every event reached every endpoint at least once (0 lost)
// within the settle time, and per endpoint and object no event arrived
// before one scheduled ahead of it had (order kept, repeats included).
func (c eventsChaos) eventsAudit(ctx context.Context) []string {
	run := c.events
	if run == nil {
		return []string{"events: the scenario did not run"}
	}
	defer run.recv.close()
	want := run.scheduled * chaosEventEndpoints
	deadline := time.Now().Add(c.cfg.Settle)
	for run.recv.distinct() < want && time.Now().Before(deadline) {
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return []string{err.Error()}
		}
	}
	var bad []string
	got, total := run.recv.distinct(), run.recv.total()
	if got < want {
		bad = append(bad, fmt.Sprintf("events: %d of %d deliveries arrived (%d lost)", got, want, want-got))
	}
	if run.scheduled != chaosEventObjects*chaosEventsPerObj {
		bad = append(bad, fmt.Sprintf("events: %d of %d events scheduled", run.scheduled, chaosEventObjects*chaosEventsPerObj))
	}
	out := run.recv.outOfOrder()
	if out > 0 {
		bad = append(bad, fmt.Sprintf("events: %d arrivals before an earlier event of their object at that endpoint", out))
	}
	c.log.Info("events audit", "kills", run.kills, "events", run.scheduled, "deliveries", want, "arrived", got,
		"requests", total, "repeats", total-got, "out_of_order", out, "problems", len(bad))
	return bad
}

// eventReceiver is the scenario's endpoints: it answers 200 and keeps, per
// endpoint (path) and object, the sequence of event places that arrived.
type eventReceiver struct {
	url  string
	srv  *http.Server
	mu   sync.Mutex
	seen map[string]bool  // path + webhook-id
	seqs map[string][]int // path + object → places, in arrival order
	n    int
}

func newEventReceiver() (*eventReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("event receiver: %w", err)
	}
	r := &eventReceiver{url: "http://" + ln.Addr().String(), seen: map[string]bool{}, seqs: map[string][]int{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *eventReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<16))
	var ev struct {
		Data eventSeq `json:"data"`
	}
	if json.Unmarshal(body, &ev) != nil || !strings.HasPrefix(req.URL.Path, "/ep") {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.n++
	r.seen[req.URL.Path+" "+req.Header.Get("webhook-id")] = true
	k := req.URL.Path + " " + strconv.Itoa(ev.Data.Object)
	r.seqs[k] = append(r.seqs[k], ev.Data.Seq)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *eventReceiver) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *eventReceiver) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// outOfOrder counts arrivals of an event whose object's earlier event had
// not arrived at that endpoint before it: a repeat of an earlier event
// after a later one counts too.
func (r *eventReceiver) outOfOrder() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, seq := range r.seqs {
		top := -1
		for _, s := range seq {
			if s < top || s > top+1 {
				n++
			}
			top = max(top, s)
		}
	}
	return n
}

func (r *eventReceiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}
