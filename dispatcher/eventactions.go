package dispatcher

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Resend makes delivery id of merchant appid due now: one more attempt of
// a delivered or dead-lettered one (same webhook-id, same body), behind
// what its object's FIFO holds; a failed one waiting for its retry is
// brought forward. 404 for another merchant's; 409 while an attempt of it
// runs.
func (e *EventDeliveries) Resend(ctx context.Context, appid, id string) error {
	if _, _, ok := splitDelivery(id); !ok {
		return notFound("delivery")
	}
	sh := schema.HomeShard(appid)
	out, err := e.store.events.resend.Run(ctx, e.rdb, []string{schema.EventDeliveryKey(sh, id), schema.WebhookHostsKey(sh)},
		id, appid, schema.WebhookKey(sh, ""), schema.WebhookQueueKey(sh, ""), schema.EventFIFOPrefix(sh), schema.EventHeadsKey(sh, "")).Text()
	if err != nil {
		return fmt.Errorf("resend delivery: %w", err)
	}
	switch out {
	case "none":
		return notFound("delivery")
	case "in_flight":
		return platform.Errorf(platform.KindConflict, "an attempt of this delivery is running; its outcome decides what comes next")
	}
	e.poke()
	return nil
}

// ReplaySince makes due now every delivery of endpoint ep (appid's, as the
// door read it) created at or after since that was dead-lettered or is
// waiting for a retry; it answers how many. since before the endpoint was
// created, or beyond the history's retention, is 400: nothing there could
// be replayed, and the merchant should know rather than get 0.
func (e *EventDeliveries) ReplaySince(ctx context.Context, appid string, ep events.Endpoint, since time.Time) (int, error) {
	if ep.AppID != appid {
		return 0, notFound("webhook endpoint")
	}
	switch {
	case since.Before(ep.Created.Truncate(time.Second)):
		return 0, platform.Errorf(platform.KindInvalidParameter, "since is before the endpoint was created (%s)", ep.Created.UTC().Format(time.RFC3339))
	case since.Before(e.now().Add(-e.cfg.EventRetention)):
		return 0, platform.Errorf(platform.KindInvalidParameter, "since is beyond the %d days deliveries are kept", int(e.cfg.EventRetention.Hours()/24))
	}
	sh := schema.HomeShard(appid)
	n, err := e.store.events.replay.Run(ctx, e.rdb, []string{schema.EventIndexKey(appid, ep.ID), schema.WebhookHostsKey(sh)},
		since.UnixMilli(), ep.ID, schema.WebhookKey(sh, ""), schema.WebhookQueueKey(sh, ""), schema.EventFIFOPrefix(sh), schema.EventHeadsKey(sh, "")).Int()
	if err != nil {
		return 0, fmt.Errorf("replay deliveries: %w", err)
	}
	if n > 0 {
		e.poke()
	}
	return n, nil
}

// testData is endpoint.test's data.
type testData struct {
	Endpoint string `json:"endpoint"`
	Test     bool   `json:"test"`
}

// SendTest sends endpoint ep a test event (endpoint.test) as a real
// delivery: recorded in its history with the answer, retried like any. It
// waits up to one attempt's time-out for the first attempt, and answers
// the delivery as it then is. A disabled endpoint is refused (409): its
// deliveries are not sent until it is enabled.
func (e *EventDeliveries) SendTest(ctx context.Context, appid string, ep events.Endpoint) (events.Delivery, error) {
	if ep.AppID != appid {
		return events.Delivery{}, notFound("webhook endpoint")
	}
	if !ep.Enabled {
		return events.Delivery{}, platform.Errorf(platform.KindConflict, "the endpoint is disabled; enable it to send it a test event")
	}
	now := e.now()
	ev, err := events.New(events.EndpointTest, "test:"+ep.ID+":"+rand.Text(), now, testData{Endpoint: ep.ID, Test: true})
	if err != nil {
		return events.Delivery{}, err
	}
	ev.Created = now.UTC().Truncate(time.Millisecond)
	if _, err := e.schedule(ctx, appid, ev, ev.ID, []events.Endpoint{ep}); err != nil {
		return events.Delivery{}, err
	}
	e.poke()
	id := DeliveryID(ev.ID, ep.ID)
	wait := time.NewTimer(e.cfg.Timeout + time.Second)
	defer wait.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		d, err := e.Delivery(ctx, appid, id)
		if err != nil || len(d.Attempts) > 0 {
			return d, err
		}
		select {
		case <-ctx.Done():
			return d, nil
		case <-wait.C:
			return d, nil
		case <-tick.C:
		}
	}
}
