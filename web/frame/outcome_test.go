package frame

import (
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestOutcomeInEveryLanguage: every kind of attempt outcome has its
// sentence in each language, with the status or host it names.
func TestOutcomeInEveryLanguage(t *testing.T) {
	cats, err := loadCatalogs(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		a    schema.WebhookAttempt
		says string // what the sentence must carry, in any language
	}{
		{"delivered", schema.WebhookAttempt{Status: 200, Success: true}, "success"},
		{"no success", schema.WebhookAttempt{Status: 202, Error: `response body is not "success"`}, "202"},
		{"status", schema.WebhookAttempt{Status: 503, Error: "HTTP 503"}, "503"},
		{"redirect", schema.WebhookAttempt{Status: 301, Error: "HTTP 301: redirects are not followed"}, "301"},
		{"refused", schema.WebhookAttempt{Error: "connection refused"}, ""},
		{"timeout", schema.WebhookAttempt{Error: "timeout after 10s"}, "10s"},
		{"no host", schema.WebhookAttempt{Error: "DNS: no such host shop.example"}, "shop.example"},
		{"lookup", schema.WebhookAttempt{Error: "DNS: the lookup of shop.example failed"}, "shop.example"},
		{"tls", schema.WebhookAttempt{Error: "TLS: the server's certificate is not valid for it"}, ""},
		{"reset", schema.WebhookAttempt{Error: "connection reset by the server"}, ""},
		{"unreachable", schema.WebhookAttempt{Error: "host unreachable"}, ""},
		{"closed", schema.WebhookAttempt{Error: "the server closed the connection before answering"}, ""},
		{"blocked", schema.WebhookAttempt{Error: "refused: the notify_url host resolves to a non-public address (private)"}, ""},
		{"invalid url", schema.WebhookAttempt{Error: "invalid notify_url: not an http or https URL"}, ""},
		{"connect", schema.WebhookAttempt{Error: "connection failed"}, ""},
		{"other", schema.WebhookAttempt{Error: "something new"}, "something new"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, lang := range Langs {
				got := cats[lang].Outcome(tt.a)
				if strings.HasPrefix(got, "outcome_") || strings.Contains(got, "{") || !strings.Contains(got, tt.says) {
					t.Fatalf("%s: %q", lang, got)
				}
			}
		})
	}
	if got := cats["en"].Outcome(schema.WebhookAttempt{Error: "connection refused"}); got != "Could not connect (connection refused)" {
		t.Fatalf("en: %q", got)
	}
}
