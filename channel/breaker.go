package channel

import (
	"encoding/json"
	"fmt"
	"time"
)

// BreakerState is whether a channel takes payments.
type BreakerState string

// Breaker states: closed routes, open does not, half open lets one probe
// through (one process holds schema.ChannelProbeKey) and closes or opens
// again on its answer.
const (
	Closed   BreakerState = "closed"
	Open     BreakerState = "open"
	HalfOpen BreakerState = "half_open"
)

// Breaker is a channel's breaker as stored: its state, why, since when,
// and when an open breaker may be probed (zero: only by hand).
type Breaker struct {
	State  BreakerState `json:"state"`
	Reason string       `json:"reason,omitempty"`
	Since  time.Time    `json:"since"`
	Probe  time.Time    `json:"probe,omitzero"`
	By     string       `json:"by,omitempty"` // who changed it by hand
}

// routable reports whether a channel in this breaker state is a routing
// candidate at now: closed always, half open and open-due-for-probe as
// the probe (the caller takes the lease before using it).
func (b Breaker) routable(now time.Time) bool {
	switch b.State {
	case "", Closed:
		return true
	case HalfOpen:
		return true
	case Open:
		return !b.Probe.IsZero() && !now.Before(b.Probe)
	}
	return false
}

// Probing reports whether using the channel now is a probe (one request
// through a breaker that is not closed).
func (b Breaker) Probing() bool { return b.State == HalfOpen || b.State == Open }

func encodeBreaker(b Breaker) (string, error) {
	v, err := json.Marshal(b)
	if err != nil {
		return "", fmt.Errorf("encode breaker: %w", err)
	}
	return string(v), nil
}

func decodeBreaker(v string) (Breaker, error) {
	var b Breaker
	if err := json.Unmarshal([]byte(v), &b); err != nil {
		return Breaker{}, fmt.Errorf("decode breaker: %w", err)
	}
	return b, nil
}

// Failure reasons of an initialisation, as metrics and the timeline name
// them. Only the first four fail over to the next channel; a plain
// refusal is the provider's word on this payment, not on the account.
const (
	ReasonTransport = "transport" // no answer: connection refused or reset
	ReasonTimeout   = "timeout"
	ReasonHTTP5xx   = "http_5xx"
	ReasonKeyword   = "keyword" // a refusal whose message holds an operator keyword
	ReasonRefused   = "refused"
)

// Outcome is one initialisation attempt on a channel, as the breaker is
// told it: OK, or the reason it failed (and the keyword it matched).
type Outcome struct {
	OK      bool
	Reason  string
	Keyword string
	Detail  string // the error as the operator may read it; never a secret
}

// FailsOver reports whether the attempt's failure is the account's, so
// the next channel is tried.
func (o Outcome) FailsOver() bool {
	return !o.OK && o.Reason != ReasonRefused
}
