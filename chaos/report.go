package chaos

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Report is a whole run's outcome.
type Report struct {
	Mode     string
	Started  time.Time
	Duration time.Duration
	Results  []Result
	Usage    *Usage
	Planted  string // the planted loss's outcome ("" when not run)
	Rates    Rates  // the load offered
	Floors   Floors // the activity each scenario had to show
	// FailuresFile holds every failed request of the load, one JSON line
	// each ("": not kept).
	FailuresFile string
	// ClientTimeout is how long the load waited for one answer.
	ClientTimeout time.Duration
}

// Err is nil when every scenario's fault was injected and undone, every
// audit passed and the planted loss (if run) was detected.
func (r *Report) Err() error {
	var errs []error
	for _, res := range r.Results {
		if res.Err != "" {
			errs = append(errs, fmt.Errorf("%s: fault: %s", res.Name, res.Err))
		}
		if !res.Audit.OK() {
			errs = append(errs, fmt.Errorf("%s: audit: %s", res.Name, strings.Join(res.Audit.Problems, "; ")))
		}
		if len(res.Floor) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", res.Name, strings.Join(res.Floor, "; ")))
		}
	}
	if r.Planted != "" && !strings.HasPrefix(r.Planted, "detected") {
		errs = append(errs, fmt.Errorf("planted loss: %s", r.Planted))
	}
	return errors.Join(errs...)
}

// Markdown writes the table and the notes under it.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "`make chaos%s`, %s, %s in all. Load per second: %.0f creates (4 methods, half with a clientOrderId, "+
		"a fifth of those repeats), %.0f sandbox pays, %.0f balance creates (workers racing on one balance), "+
		"%.0f balance transfers through the payer pages (workers racing on one payer), %.0f queries (order and listing), offered; "+
		"each scenario must show at least %.0f%% of the same run's baseline's answered creates per second "+
		"(or of the creates sent in the scenario times the baseline's answered share, if less), and %.0f%% of its paid orders with "+
		"acknowledged webhooks and balance payments per answered create; at least %d, %d and %d whatever the baseline did; "+
		"and the baseline must answer every request within the load's %s time-out (floors in parentheses).\n\n",
		map[string]string{"quick": "-quick", "full": ""}[r.Mode], r.Started.Format("2006-01-02 15:04 UTC"), r.Duration,
		r.Rates.Creates, r.Rates.Pays, r.Rates.SelfPays, r.Rates.Transfers, r.Rates.Queries,
		100*r.Floors.Fraction, 100*r.Floors.PerCreate, r.Floors.Creates, r.Floors.PaidWebhooks, r.Floors.BalancePayments, r.ClientTimeout)
	fmt.Fprintln(w, "| scenario | fault | held | requests ok/sent during the scenario | creates 2xx / failed | failed requests by reason | audit (all orders so far): answered, orphans, webhooks acked/paid, late webhooks | activity (floor): creates, paid with webhook, balance payments, in | requests failed until | settled in | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, res := range r.Results {
		verdict := "pass"
		if !res.OK() {
			probs := append(append([]string(nil), res.Audit.Problems...), res.Floor...)
			if len(probs) > 2 {
				probs = append(probs[:2:2], fmt.Sprintf("and %d more", len(res.Audit.Problems)+len(res.Floor)-2))
			}
			if res.Err != "" {
				probs = append(probs, "fault: "+res.Err)
			}
			verdict = "**FAIL**: " + strings.Join(probs, "; ")
			if res.Recovery != "" {
				verdict += " — " + res.Recovery
			}
		}
		a := res.Audit
		act := res.Activity
		want := res.Want
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d / %d | %s | %d, %d, %d/%d, %d | %d (%d), %d (%d), %d (%d) in %s | %s | %s | %s |\n",
			res.Name, res.Fault, hold(res.Hold), opsLine(res.Ops), res.Answered, res.Failed, reasonsLine(res.Reasons),
			a.Answered, a.Orphans, a.Webhooks, a.Paid, a.LateWebhooks,
			act.Creates, want.Creates, act.PaidWebhooks, want.PaidWebhooks, act.BalancePayments, want.BalancePayments,
			act.Duration.Round(time.Second),
			failingFor(res.FailingFor), res.Settled, strings.ReplaceAll(verdict, "|", "/"))
	}
	fmt.Fprintln(w)
	if u := r.Usage; u != nil {
		fmt.Fprintf(w, "Projector outage (ClickHouse stopped %.0f s): %d stream entries added, streams grew %d bytes: "+
			"**%.0f bytes per entry** at **%.1f events/s**; Redis used_memory %d bytes, maxmemory %d.\n\n",
			u.Seconds, u.Entries, u.Bytes, u.BytesPerEntry(), u.EventsPerSecond(), u.UsedMemory, u.MaxMemory)
		fmt.Fprintf(w, "So T = headroom / (%.0f B × E): per GiB of headroom, %s at this load's %.1f events/s, "+
			"%s at 1,000 events/s, %s at 10,000 events/s.\n\n", u.BytesPerEntry(),
			u.OutageFor(1<<30, u.EventsPerSecond()).Round(time.Minute), u.EventsPerSecond(),
			u.OutageFor(1<<30, 1000).Round(time.Second), u.OutageFor(1<<30, 10000).Round(time.Second))
	}
	if r.Planted != "" {
		fmt.Fprintf(w, "Planted loss: %s.\n", r.Planted)
	}
	if r.FailuresFile != "" {
		fmt.Fprintf(w, "\nEvery failed request (time, scenario, request, reason, status, detail): `%s`.\n", r.FailuresFile)
	}
}

// failingFor is how long after the fault began requests still failed.
func failingFor(d time.Duration) string {
	if d == 0 {
		return "none failed"
	}
	return d.Round(100*time.Millisecond).String() + " after the fault began"
}

func hold(d time.Duration) string {
	if d == 0 {
		return "—"
	}
	return d.String()
}

// Markers delimit the generated part of RELIABILITY.md.
const (
	beginMarker = "<!-- chaos:begin (generated by make chaos) -->"
	endMarker   = "<!-- chaos:end -->"
)

// WriteInto replaces the generated part of the file at path with the
// report, keeping the prose around it.
func (r *Report) WriteInto(path string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	before, rest, ok := strings.Cut(string(old), beginMarker)
	_, after, ok2 := strings.Cut(rest, endMarker)
	if !ok || !ok2 {
		return fmt.Errorf("%s has no %q ... %q section", path, beginMarker, endMarker)
	}
	var b strings.Builder
	b.WriteString(before + beginMarker + "\n\n")
	r.Markdown(&b)
	b.WriteString("\n" + endMarker + after)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
