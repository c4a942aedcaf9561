package events

import (
	"context"
	"time"

	"github.com/paygate/gateway/platform"
)

// Retention is how long an endpoint's delivery history is kept: a replay
// reaches no further back.
const Retention = 30 * 24 * time.Hour

// EndpointDeliveries is the delivery engine as the doors (the merchant
// API, the console, the CLI) use it: an endpoint's deliveries with their
// attempts, and what sends one again. Another merchant's delivery is 404
// as a missing one is.
type EndpointDeliveries interface {
	// Deliveries are the endpoint's deliveries created before the cursor
	// (ms, 0: now), newest first, at most n, and the next page's cursor
	// (0 on the last).
	Deliveries(ctx context.Context, appid, endpointID string, before int64, n int) ([]Delivery, int64, error)
	Delivery(ctx context.Context, appid, deliveryID string) (Delivery, error)
	Resend(ctx context.Context, appid, deliveryID string) error
	ReplaySince(ctx context.Context, appid string, ep Endpoint, since time.Time) (int, error)
	SendTest(ctx context.Context, appid string, ep Endpoint) (Delivery, error)
}

// CheckReplaySince refuses a replay of ep's deliveries since a time before
// the endpoint existed or older than the history kept: there is nothing of
// it to replay, and a typo of the year should not look like "none failed".
func CheckReplaySince(ep Endpoint, since, now time.Time) error {
	switch {
	case since.IsZero():
		return platform.Errorf(platform.KindInvalidParameter, "since is required (RFC 3339)")
	case since.Before(ep.Created.Truncate(time.Second)):
		return platform.Errorf(platform.KindInvalidParameter, "since is before the endpoint was created (%s)", ep.Created.UTC().Format(time.RFC3339))
	case since.Before(now.Add(-Retention)):
		return platform.Errorf(platform.KindInvalidParameter, "since is older than the %d days of delivery history kept", int(Retention.Hours()/24))
	case since.After(now):
		return platform.Errorf(platform.KindInvalidParameter, "since is in the future")
	}
	return nil
}

// ErrNoDeliveries is a door's answer about deliveries when its node has no
// delivery engine wired (nil): the endpoints themselves still work.
var ErrNoDeliveries = platform.Errorf(platform.KindUnavailable, "webhook endpoint deliveries are not served by this node")
