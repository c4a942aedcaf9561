package dispatcher

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/schema"
)

// whyFailing is the reason the gateway gives an endpoint it disabled.
const whyFailing = "failing"

// EndpointException is an endpoint the gateway disabled, as the operators'
// exceptions queue keeps it (schema.EndpointExceptionKey).
type EndpointException struct {
	AppID      string    `json:"appid"`
	EndpointID string    `json:"endpoint"`
	URL        string    `json:"url"`
	FailingAt  time.Time `json:"failing_since"` // its first failure since its last success
	At         time.Time `json:"at"`            // when it was disabled
}

// disable turns off an endpoint whose attempts have all failed for
// EndpointDisableAfter: the endpoint is disabled (the system's audit
// entry), the operators' exceptions queue gets an entry, the merchant's
// other endpoints receive endpoint.disabled, and what the endpoint had
// queued is dead-lettered ("endpoint disabled"; a replay sends it once it
// is enabled again). Each step may run twice (another failing attempt
// after a crash halfway) without a second entry or event.
func (e *EventDeliveries) disable(ctx context.Context, appid, epid string) {
	if err := e.disableEndpoint(ctx, appid, epid); err != nil {
		e.log.Error("disabling a failing webhook endpoint failed; the next failed attempt tries again",
			"appid", appid, "endpoint", epid, "err", err)
	}
}

func (e *EventDeliveries) disableEndpoint(ctx context.Context, appid, epid string) error {
	if e.eps == nil {
		return fmt.Errorf("no endpoint store")
	}
	ep, err := e.eps.Disable(ctx, appid, epid, whyFailing)
	if err != nil {
		return fmt.Errorf("disable endpoint: %w", err)
	}
	if ep.DisabledWhy != whyFailing {
		return nil // a person turned it off meanwhile: no exception, no event
	}
	since, _ := e.rdb.HGet(ctx, schema.EventHealthKey(appid), epid).Int64()
	if err := e.raiseDisabled(ctx, ep, time.UnixMilli(since).UTC()); err != nil {
		return err
	}
	if err := e.tellOthers(ctx, ep); err != nil {
		return err
	}
	n, err := e.dropQueued(ctx, appid, epid, whyDisabled)
	if err != nil {
		return err
	}
	e.m.disabled.Inc()
	e.log.Warn("webhook endpoint disabled: every attempt failed for too long", "appid", appid, "endpoint", epid,
		"failing_since", time.UnixMilli(since).UTC(), "dead_lettered", n)
	return nil
}

// raiseDisabled puts the endpoint in the operators' exceptions queue, on
// the merchant's home shard; raising it again changes nothing.
func (e *EventDeliveries) raiseDisabled(ctx context.Context, ep events.Endpoint, since time.Time) error {
	sh := schema.HomeShard(ep.AppID)
	member := ep.AppID + " " + ep.ID
	raw, err := json.Marshal(EndpointException{AppID: ep.AppID, EndpointID: ep.ID, URL: ep.URL, FailingAt: since, At: ep.DisabledAt})
	if err != nil {
		return fmt.Errorf("encode endpoint exception: %w", err)
	}
	_, err = e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.EndpointExceptionKey(sh), member, raw)
		p.ZAddNX(ctx, schema.EndpointExceptionsKey(sh), redis.Z{Score: float64(ep.DisabledAt.UnixMilli()), Member: member})
		return nil
	})
	if err != nil {
		return fmt.Errorf("raise endpoint exception: %w", err)
	}
	return nil
}

// disabledData is endpoint.disabled's data: the endpoint, never its secret.
type disabledData struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Description string    `json:"description,omitempty"`
	Enabled     bool      `json:"enabled"`
	DisabledWhy string    `json:"disabled_why"`
	DisabledAt  time.Time `json:"disabled_at"`
}

// tellOthers sends endpoint.disabled to the merchant's other enabled
// endpoints that take it. Its id derives from the endpoint and the time it
// was disabled: sent again after a crash, it is the same event.
func (e *EventDeliveries) tellOthers(ctx context.Context, ep events.Endpoint) error {
	all, err := e.eps.List(ctx, ep.AppID)
	if err != nil {
		return fmt.Errorf("list endpoints: %w", err)
	}
	var to []events.Endpoint
	for _, o := range all {
		if o.ID != ep.ID && o.Wants(events.EndpointDisabled) {
			to = append(to, o)
		}
	}
	if len(to) == 0 {
		return nil
	}
	source := ep.ID + "@" + strconv.FormatInt(ep.DisabledAt.UnixMilli(), 10)
	ev, err := events.New(events.EndpointDisabled, source, ep.DisabledAt, disabledData{ID: ep.ID, URL: ep.URL,
		Description: ep.Description, Enabled: false, DisabledWhy: ep.DisabledWhy, DisabledAt: ep.DisabledAt})
	if err != nil {
		return fmt.Errorf("endpoint.disabled event: %w", err)
	}
	if _, err := e.schedule(ctx, ep.AppID, ev, "endpoint:"+ep.ID, to); err != nil {
		return err
	}
	e.poke()
	return nil
}

// dropQueued dead-letters every delivery endpoint epid has queued.
func (e *EventDeliveries) dropQueued(ctx context.Context, appid, epid, why string) (int, error) {
	sh := schema.HomeShard(appid)
	n, err := e.store.events.drop.Run(ctx, e.rdb, []string{schema.EventHeadsKey(sh, epid), schema.WebhookHostsKey(sh)},
		epid, why, schema.WebhookKey(sh, ""), schema.WebhookQueueKey(sh, ""), schema.EventFIFOPrefix(sh)).Int()
	if err != nil {
		return 0, fmt.Errorf("dead-letter the endpoint's queue: %w", err)
	}
	if n > 0 {
		e.m.ended.WithLabelValues("dead_disabled").Add(float64(n))
	}
	return n, nil
}
