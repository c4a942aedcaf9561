package schema

import (
	"strconv"
	"strings"
)

// Kinds of attempt outcome, as a person is told them (the consoles'
// messages "outcome_<kind>"): the attempt record keeps the dispatcher's
// terse text ("HTTP 0 · connection refused" on a page reads as a fault
// of ours), these name what happened at the merchant's end.
const (
	OutcomeDelivered   = "delivered"   // answered success
	OutcomeNoSuccess   = "no_success"  // 2xx without the body success
	OutcomeStatus      = "status"      // answered another status
	OutcomeRedirect    = "redirect"    // answered 3xx, which is not followed
	OutcomeRefused     = "refused"     // connection refused
	OutcomeTimeout     = "timeout"     // no answer in time; Detail the time-out
	OutcomeNoHost      = "no_host"     // DNS: no such host; Detail the host
	OutcomeLookup      = "lookup"      // DNS: the lookup failed or timed out; Detail the host
	OutcomeTLS         = "tls"         // the certificate is not valid for the host
	OutcomeReset       = "reset"       // the server reset the connection
	OutcomeUnreachable = "unreachable" // no route to the host
	OutcomeClosed      = "closed"      // closed before answering
	OutcomeBlocked     = "blocked"     // not sent: a non-public address
	OutcomeInvalidURL  = "invalid_url" // not sent: not an http(s) URL
	OutcomeConnect     = "connect"     // could not connect, no more known
	OutcomeOther       = "other"       // anything else; Detail the recorded text
)

// AttemptOutcome is what one attempt came to.
type AttemptOutcome struct {
	Kind   string
	Status int    // the HTTP status, 0 when no answer came
	Detail string // a host, a time-out or the recorded text, as Kind says
}

// Outcome reads the attempt's recorded error as one of the kinds. The texts
// are the dispatcher's (dispatcher/client.go, reason.go, guard.go); a
// record of any age is read, an unknown text is OutcomeOther with it.
func (a WebhookAttempt) Outcome() AttemptOutcome {
	o := AttemptOutcome{Status: a.Status}
	e := strings.TrimSpace(a.Error)
	switch {
	case a.Success:
		o.Kind = OutcomeDelivered
	case strings.HasPrefix(e, "refused:"):
		o.Kind = OutcomeBlocked
	case strings.HasPrefix(e, "invalid notify_url"):
		o.Kind = OutcomeInvalidURL
	case strings.HasPrefix(e, "timeout after "):
		o.Kind, o.Detail = OutcomeTimeout, strings.TrimPrefix(e, "timeout after ")
	case strings.HasPrefix(e, "DNS: no such host "):
		o.Kind, o.Detail = OutcomeNoHost, strings.TrimPrefix(e, "DNS: no such host ")
	case strings.HasPrefix(e, "DNS: the lookup of "):
		host, _, _ := strings.Cut(strings.TrimPrefix(e, "DNS: the lookup of "), " ")
		o.Kind, o.Detail = OutcomeLookup, host
	case e == "connection refused":
		o.Kind = OutcomeRefused
	case e == "connection reset by the server":
		o.Kind = OutcomeReset
	case e == "host unreachable":
		o.Kind = OutcomeUnreachable
	case strings.HasPrefix(e, "TLS:"):
		o.Kind = OutcomeTLS
	case e == "the server closed the connection before answering":
		o.Kind = OutcomeClosed
	case e == "connection failed":
		o.Kind = OutcomeConnect
	case a.Status >= 300 && a.Status <= 399:
		o.Kind = OutcomeRedirect
	case a.Status >= 200 && a.Status <= 299:
		o.Kind = OutcomeNoSuccess
	case a.Status != 0 && (e == "" || e == "HTTP "+strconv.Itoa(a.Status)):
		o.Kind = OutcomeStatus
	default:
		o.Kind, o.Detail = OutcomeOther, e
	}
	return o
}
