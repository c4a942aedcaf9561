package account

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// fakeDeliveries is the delivery engine as the pages see it: each
// endpoint of the shop has a delivered and a dead delivery, a test or a
// resend is recorded, a replay counts the dead ones.
type fakeDeliveries struct {
	mu      sync.Mutex
	now     time.Time
	asked   []string // "test ep", "resend id", "replay ep"
	created map[string][]events.Delivery
}

func newFakeDeliveries(now time.Time) *fakeDeliveries {
	return &fakeDeliveries{now: now, created: map[string][]events.Delivery{}}
}

func (f *fakeDeliveries) of(ep string) []events.Delivery {
	ds := f.created[ep]
	base := []events.Delivery{
		{ID: "evt_dead." + ep, EventID: "evt_dead", Type: events.OrderExpired, EndpointID: ep, Created: f.now.Add(-2 * time.Hour), State: events.Dead,
			Body:     `{"id":"evt_dead","type":"order.expired","data":{"paymentId":"P1"}}`,
			Attempts: []events.Attempt{{At: f.now.Add(-2 * time.Hour), Status: 503, Outcome: "Answered 503", Answer: "busy", Duration: 40 * time.Millisecond}}},
		{ID: "evt_ok." + ep, EventID: "evt_ok", Type: events.OrderPaid, EndpointID: ep, Created: f.now.Add(-3 * time.Hour), State: events.Delivered,
			Body:     `{"id":"evt_ok","type":"order.paid","data":{"paymentId":"P0"}}`,
			Attempts: []events.Attempt{{At: f.now.Add(-3 * time.Hour), Status: 200, Outcome: "Answered 200", Answer: "ok", Duration: 12 * time.Millisecond}}},
	}
	return append(append([]events.Delivery(nil), ds...), base...)
}

func (f *fakeDeliveries) Deliveries(_ context.Context, _, ep string, _ int64, n int) ([]events.Delivery, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ds := f.of(ep)
	if len(ds) > n {
		ds = ds[:n]
	}
	return ds, 0, nil
}

func (f *fakeDeliveries) Delivery(_ context.Context, _, id string) (events.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ep, _ := strings.Cut(id, ".")
	for _, d := range f.of(ep) {
		if d.ID == id {
			return d, nil
		}
	}
	return events.Delivery{}, platform.Errorf(platform.KindNotFound, "no such delivery")
}

func (f *fakeDeliveries) Resend(_ context.Context, _, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "resend "+id)
	return nil
}

func (f *fakeDeliveries) ReplaySince(_ context.Context, _ string, ep events.Endpoint, _ time.Time) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "replay "+ep.ID)
	return 1, nil
}

func (f *fakeDeliveries) SendTest(_ context.Context, _ string, ep events.Endpoint) (events.Delivery, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "test "+ep.ID)
	d := events.Delivery{ID: "evt_test." + ep.ID, EventID: "evt_test", Type: events.EndpointTest, EndpointID: ep.ID, Created: f.now,
		State: events.Pending, NextAt: f.now, Body: `{"id":"evt_test","type":"endpoint.test","data":{"endpoint":"` + ep.ID + `","test":true}}`}
	f.created[ep.ID] = append([]events.Delivery{d}, f.created[ep.ID]...)
	return d, nil
}

func (f *fakeDeliveries) Asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// endpoint saves an endpoint of appid added an hour before now, as a
// developer would have, and returns it.
func (e *env) endpoint(appid string) events.Endpoint {
	e.t.Helper()
	ep := events.Endpoint{ID: "ep_0000000000" + appid, AppID: appid, URL: "https://93.184.216.34/hooks", Enabled: true,
		Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=", Created: e.now.Add(-time.Hour), Updated: e.now.Add(-time.Hour)}
	raw, _ := json.Marshal(ep)
	if err := e.rdb.HSet(context.Background(), schema.EndpointsKey(appid), ep.ID, raw).Err(); err != nil {
		e.t.Fatal(err)
	}
	return ep
}

// who is the audit entry of a test's own setup.
func who(at time.Time) audit.Entry {
	return audit.Entry{At: at, ActorID: "setup", Realm: audit.RealmCLI, Source: "cli"}
}

// fixedEndpointID is an endpoint of the shop the forms of the role tests
// act on, saved again (as it was) before each form.
const fixedEndpointID = "ep_00000000000000e1"

const fixedEndpointPath = "/webhooks/endpoints/" + fixedEndpointID

// fixedEndpoint saves the shop's endpoint fixedEndpointID as first added,
// an hour before now, and returns its id.
func (e *env) fixedEndpoint() string {
	e.t.Helper()
	ep := e.endpoint(e.shop.AppID)
	ep.ID = fixedEndpointID
	raw, _ := json.Marshal(ep)
	if err := e.rdb.HSet(context.Background(), schema.EndpointsKey(e.shop.AppID), ep.ID, raw).Err(); err != nil {
		e.t.Fatal(err)
	}
	return ep.ID
}
