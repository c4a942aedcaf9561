package frame

import (
	"strconv"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Outcome says what a webhook attempt came to as a person would ("Could
// not connect (connection refused)", "Answered 500 instead of success"):
// the one wording of every console page that shows an attempt (the
// merchant's Webhooks page, both consoles' order timelines).
func (c *Catalog) Outcome(a schema.WebhookAttempt) string {
	o := a.Outcome()
	return c.T("outcome_"+o.Kind, "Status", o.Status, "Detail", o.Detail)
}

// AttemptLine is an attempt as a timeline line: its number, whether a
// resend asked for it, the outcome, how long it took and the first bytes
// of the answer.
func (c *Catalog) AttemptLine(a schema.WebhookAttempt) string {
	var b strings.Builder
	b.WriteString("#" + strconv.Itoa(a.Attempt))
	if a.Manual {
		b.WriteString(" " + c.T("outcome_resend"))
	}
	b.WriteString(" · " + c.Outcome(a))
	if a.LatencyMs > 0 {
		b.WriteString(" · " + c.T("outcome_took", "Ms", a.LatencyMs))
	}
	if body := strings.TrimSpace(a.Body); body != "" && !a.Success {
		if len(body) > 120 {
			body = strings.ToValidUTF8(body[:120], "") + "…"
		}
		b.WriteString(" · “" + body + "”")
	}
	return b.String()
}
