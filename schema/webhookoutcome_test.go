package schema

import "testing"

// TestAttemptOutcome reads each text the dispatcher records as the kind a
// person is told, and keeps what the sentence names (host, time-out).
func TestAttemptOutcome(t *testing.T) {
	for _, tt := range []struct {
		name string
		a    WebhookAttempt
		want AttemptOutcome
	}{
		{"acknowledged", WebhookAttempt{Status: 200, Body: "success", Success: true}, AttemptOutcome{Kind: OutcomeDelivered, Status: 200}},
		{"2xx without success", WebhookAttempt{Status: 200, Error: `response body is not "success"`, Body: "ok"}, AttemptOutcome{Kind: OutcomeNoSuccess, Status: 200}},
		{"2xx too long", WebhookAttempt{Status: 204, Error: `response body longer than 4096 bytes is not "success"`}, AttemptOutcome{Kind: OutcomeNoSuccess, Status: 204}},
		{"500", WebhookAttempt{Status: 500, Error: "HTTP 500"}, AttemptOutcome{Kind: OutcomeStatus, Status: 500}},
		{"redirect", WebhookAttempt{Status: 302, Error: "HTTP 302: redirects are not followed"}, AttemptOutcome{Kind: OutcomeRedirect, Status: 302}},
		{"connection refused", WebhookAttempt{Error: "connection refused"}, AttemptOutcome{Kind: OutcomeRefused}},
		{"time-out", WebhookAttempt{Error: "timeout after 10s"}, AttemptOutcome{Kind: OutcomeTimeout, Detail: "10s"}},
		{"no such host", WebhookAttempt{Error: "DNS: no such host shop.example"}, AttemptOutcome{Kind: OutcomeNoHost, Detail: "shop.example"}},
		{"lookup timed out", WebhookAttempt{Error: "DNS: the lookup of shop.example timed out"}, AttemptOutcome{Kind: OutcomeLookup, Detail: "shop.example"}},
		{"lookup failed", WebhookAttempt{Error: "DNS: the lookup of shop.example failed"}, AttemptOutcome{Kind: OutcomeLookup, Detail: "shop.example"}},
		{"tls", WebhookAttempt{Error: "TLS: the server's certificate is not valid for it"}, AttemptOutcome{Kind: OutcomeTLS}},
		{"reset", WebhookAttempt{Error: "connection reset by the server"}, AttemptOutcome{Kind: OutcomeReset}},
		{"unreachable", WebhookAttempt{Error: "host unreachable"}, AttemptOutcome{Kind: OutcomeUnreachable}},
		{"closed", WebhookAttempt{Error: "the server closed the connection before answering"}, AttemptOutcome{Kind: OutcomeClosed}},
		{"connection failed", WebhookAttempt{Error: "connection failed"}, AttemptOutcome{Kind: OutcomeConnect}},
		{"non-public address", WebhookAttempt{Error: "refused: the notify_url host resolves to a non-public address (private); webhooks go to public addresses only"}, AttemptOutcome{Kind: OutcomeBlocked}},
		{"not a URL", WebhookAttempt{Error: "invalid notify_url: not an http or https URL"}, AttemptOutcome{Kind: OutcomeInvalidURL}},
		{"unknown text", WebhookAttempt{Error: "stored callback parameters cannot be read"}, AttemptOutcome{Kind: OutcomeOther, Detail: "stored callback parameters cannot be read"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Outcome(); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
