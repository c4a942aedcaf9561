package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

const webhookUsage = `usage: gateway webhook <subcommand> PAYMENTID [REFUNDID] [--json] [--redis-url URL]

  log PAYMENTID [REFUNDID]       the order's webhook delivery and every attempt;
                                 with a REFUNDID, that refund's webhook
  resend PAYMENTID [REFUNDID] [--wait D]
                                 send once more (recorded as manual): a
                                 dead-lettered or acknowledged order gets one
                                 attempt, a pending one its next attempt now.
                                 A running dispatcher sends it; --wait shows
                                 the attempt when it is recorded.
  endpoint add|list|show|update|rotate|remove|test|replay|deliveries APPID ...
                                 a merchant's webhook endpoints for typed
                                 events (gateway webhook endpoint --help)
`

// webhookCmd inspects and replays webhook deliveries in Redis.
func webhookCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, webhookUsage)
		return errors.New("webhook: no subcommand given")
	}
	sub := args[0]
	if sub == "endpoint" {
		return webhookEndpointCmd(ctx, args[1:], stdout, stderr)
	}
	if sub != "log" && sub != "resend" {
		fmt.Fprint(stderr, webhookUsage)
		return fmt.Errorf("webhook: unknown subcommand %q", sub)
	}
	synopsis := "PAYMENTID [REFUNDID] [--json]"
	if sub == "resend" {
		synopsis = "PAYMENTID [REFUNDID] [--wait D] [--json]"
	}
	fs := subFlags("webhook", sub, synopsis, args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	wait, by := new(time.Duration), new(string)
	if sub == "resend" {
		fs.DurationVar(wait, "wait", 0, "wait this long for the attempt and show it")
		fs.StringVar(by, "by", "", "who resends, recorded in the audit log (default: the OS user)")
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 && len(pos) != 2 {
		return fmt.Errorf("webhook %s: want a PAYMENTID and optionally a REFUNDID\n%s", sub, webhookUsage)
	}
	ref := webhookRef{payment: pos[0]}
	if len(pos) == 2 {
		ref.refund = pos[1]
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ref.d = dispatcher.NewWebhooks(rdb)
	w := webhookOutput{w: stdout, json: *asJSON}
	if sub == "resend" {
		actor, err := cliAuditActor(*by, given(fs, "by"))
		if err != nil {
			return fmt.Errorf("webhook resend: %w", err)
		}
		ref.resender = func(ctx context.Context) error {
			return ref.d.Resend(ctx, dispatcher.ResendAsk{PaymentID: ref.payment, RefundID: ref.refund, By: &actor})
		}
		return resendWebhook(ctx, ref, *wait, w)
	}
	return showWebhook(ctx, ref, w)
}

// webhookRef names the delivery a command acts on: an order's paid webhook,
// or with a refund id that refund's (its own delivery on the order's shard).
type webhookRef struct {
	d        *dispatcher.Webhooks
	resender func(context.Context) error // the audited resend
	payment  string
	refund   string
}

func (r webhookRef) String() string {
	if r.refund == "" {
		return r.payment
	}
	return r.payment + " refund " + r.refund
}

func (r webhookRef) state(ctx context.Context) (*dispatcher.Delivery, error) {
	return r.d.State(ctx, r.payment, r.refund)
}

func (r webhookRef) log(ctx context.Context) ([]schema.WebhookAttempt, error) {
	return r.d.Log(ctx, r.payment, r.refund)
}

func (r webhookRef) resend(ctx context.Context) error {
	if r.resender != nil {
		return r.resender(ctx)
	}
	cli := access.CLI()
	return r.d.Resend(ctx, dispatcher.ResendAsk{PaymentID: r.payment, RefundID: r.refund, By: &cli})
}

// webhookReport is what `webhook log` prints.
type webhookReport struct {
	Delivery *dispatcher.Delivery    `json:"delivery"`
	Attempts []schema.WebhookAttempt `json:"attempts"`
}

func readWebhook(ctx context.Context, ref webhookRef) (webhookReport, error) {
	st, err := ref.state(ctx)
	if errors.Is(err, dispatcher.ErrNoDelivery) {
		return webhookReport{}, fmt.Errorf("%s: %w (not paid, no notify_url, refund not ended or not this order's, not consumed yet, or expired)", ref, err)
	}
	if err != nil {
		return webhookReport{}, err
	}
	log, err := ref.log(ctx)
	if err != nil {
		return webhookReport{}, err
	}
	return webhookReport{Delivery: st, Attempts: log}, nil
}

func showWebhook(ctx context.Context, ref webhookRef, w webhookOutput) error {
	r, err := readWebhook(ctx, ref)
	if err != nil {
		return err
	}
	return w.report(r)
}

// resendWebhook queues the resend and, with wait, follows it to its record.
func resendWebhook(ctx context.Context, ref webhookRef, wait time.Duration, w webhookOutput) error {
	before, err := ref.log(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	if err := ref.resend(ctx); err != nil {
		return fmt.Errorf("%s: %w", ref, err)
	}
	if wait <= 0 {
		if w.json {
			out := map[string]string{"paymentId": ref.payment, "resend": "queued"}
			if ref.refund != "" {
				out["refundId"] = ref.refund
			}
			return w.encode(out)
		}
		_, err := fmt.Fprintf(w.w, "%s: resend queued; a running dispatcher sends it now (see: gateway webhook log %s %s)\n",
			ref, ref.payment, ref.refund)
		return err
	}
	deadline := time.Now().Add(wait)
	for {
		r, err := readWebhook(ctx, ref)
		if err != nil {
			return err
		}
		if len(r.Attempts) > len(before) && r.Delivery.State != dispatcher.StatePending {
			return w.report(r)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: resend queued, but no attempt recorded within %s: is a dispatcher running?", ref, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type webhookOutput struct {
	w    io.Writer
	json bool
}

func (o webhookOutput) encode(v any) error {
	enc := json.NewEncoder(o.w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// report prints the delivery, then one line per attempt.
func (o webhookOutput) report(r webhookReport) error {
	if o.json {
		return o.encode(r)
	}
	d := r.Delivery
	fmt.Fprintf(o.w, "payment:    %s\n", d.PaymentID)
	if d.RefundID != "" {
		fmt.Fprintf(o.w, "refund:     %s\n", d.RefundID)
	}
	auto, manual := countAttempts(r.Attempts)
	fmt.Fprintf(o.w, "state:      %s\nnotify_url: %s\nattempts:   %d (%d automatic, %d manual)\n", d.State, d.URL, auto+manual, auto, manual)
	if !d.NextDue.IsZero() {
		fmt.Fprintf(o.w, "next:       %s\n", schema.WireTime(d.NextDue))
	}
	if d.InFlight {
		fmt.Fprintln(o.w, "in flight:  an attempt is running")
	}
	fmt.Fprintln(o.w)
	tw := tabwriter.NewWriter(o.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tAT\tKIND\tSTATUS\tLATENCY\tRESULT\tBODY")
	for _, a := range r.Attempts {
		kind, status, result := "auto", "-", "success"
		if a.Manual {
			kind = "manual"
		}
		if a.Status != 0 {
			status = strconv.Itoa(a.Status)
		}
		if !a.Success {
			result = a.Error
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%dms\t%s\t%s\n", a.Attempt, a.At, kind, status, a.LatencyMs, result, oneLine(a.Body, 60))
	}
	return tw.Flush()
}

// countAttempts counts the rows the table below shows, by kind, so that the
// summary and the table never disagree (the delivery's own counter is the
// retry schedule's step, which a resend of a pending delivery also moves).
func countAttempts(as []schema.WebhookAttempt) (auto, manual int) {
	for _, a := range as {
		if a.Manual {
			manual++
		} else {
			auto++
		}
	}
	return auto, manual
}

// oneLine shows a body on one table row: quoted, cut at n runes.
func oneLine(s string, n int) string {
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// accountKeys signs webhooks with the accounts in Redis, read directly (a
// process without a directory cache: a command-line tool, a test).
func accountKeys(st *merchant.Store) dispatcher.KeyLookup {
	return dispatcher.AccountKeys(st.Get, st.EnsureWebhookSecret)
}
