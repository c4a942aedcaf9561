package events

import (
	"context"

	"github.com/paygate/gateway/audit"
)

// Audit actions of what a door asks of an endpoint's deliveries; they
// change no endpoint, so they are appended apart from the save script.
const (
	ActionTest   = "webhook_endpoint.test"
	ActionResend = "webhook_endpoint.resend"
	ActionReplay = "webhook_endpoint.replay"
)

// Record appends e (its action one of the above, its details what was
// asked: the delivery as ref, "since T" as note, a count) as done to endpoint ep.
func (s *Store) Record(ctx context.Context, ep Endpoint, e audit.Entry) error {
	if _, err := audit.NewLog(s.rdb).Append(ctx, entryOf(e, ep)); err != nil {
		return err
	}
	return nil
}
