package events

import "time"

// Delivery states.
const (
	Pending   = "pending"   // due, being tried, or waiting for its retry
	Delivered = "delivered" // an attempt was answered with a 2xx
	Dead      = "dead"      // the retry schedule ended (or the endpoint was disabled); replay sends it again
)

// Delivery is one event's delivery to one endpoint, as the console, the
// API and the CLI show it: the body exactly as sent and every attempt's
// answer.
type Delivery struct {
	ID         string // <event id>.<endpoint id>
	EventID    string // the webhook-id header
	Type       Type
	EndpointID string
	Created    time.Time
	State      string
	NextAt     time.Time // when pending: the next attempt
	Body       string
	Attempts   []Attempt
	// Reason is why a dead delivery was dead-lettered: "every retry
	// failed", "endpoint disabled" or "endpoint removed".
	Reason string
	// Resend is set while a one-off resend or replay of an ended delivery
	// waits or runs: the state it came from.
	Resend string
}

// Attempt is one try of a delivery.
type Attempt struct {
	At       time.Time
	Status   int    // the HTTP status, 0 when none came
	Outcome  string // in words: "Answered 200", "Could not connect (connection refused)"
	Answer   string // the answer's first bytes
	Duration time.Duration
}
