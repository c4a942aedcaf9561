package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

const orderUsage = `usage: gateway order show PAYMENTID [--json] [--redis-url URL]

  show PAYMENTID   the order as Redis holds it, its events still in the
                   stream, every provider notification with its verdict,
                   a usdt_direct order's review state and decisions,
                   and its webhook delivery with every attempt: what
                   support needs to answer "did this payment go through?"
`

// orderReport is what `order show` prints.
type orderReport struct {
	Order         *schema.Order               `json:"order"`
	Events        []orderEvent                `json:"events"`
	Notifications []schema.NotificationRecord `json:"notifications"`
	Review        *reviewReport               `json:"review,omitempty"`
	Webhook       *webhookReport              `json:"webhook,omitempty"`
	WebhookNote   string                      `json:"webhookNote,omitempty"`
}

// reviewReport is a usdt_direct order's review: its state, the reason the
// payer sees, and every decision with who, when and why.
type reviewReport struct {
	TxHash string `json:"txHash,omitempty"`
	// State and Reason are schema.USDTReviewOf's (queued, checking,
	// not_found, confirming, retrying, waiting_admin, approved, rejected,
	// closed); "none" before any transaction was submitted.
	State   string                 `json:"state"`
	Reason  string                 `json:"reason,omitempty"`
	Detail  string                 `json:"detail"`
	Now     *schema.USDTReviewView `json:"now,omitempty"`
	History []usdt.Decision        `json:"history"`
}

type orderEvent struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	At      string `json:"at"`
	Status  string `json:"status"`
	Version string `json:"version"`
}

func orderCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "show" {
		fmt.Fprint(stderr, orderUsage)
		return errors.New("order: want the subcommand show")
	}
	fs := flag.NewFlagSet("order show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("order show: want a PAYMENTID\n%s", orderUsage)
	}
	if _, ok := schema.ParseOrderID(pos[0]); !ok {
		return fmt.Errorf("order show: %q is not a payment id", pos[0])
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	r, err := readOrder(ctx, rdb, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return output{w: stdout, json: true}.value(r)
	}
	return printOrder(stdout, r)
}

func readOrder(ctx context.Context, rdb redis.UniversalClient, id string) (*orderReport, error) {
	if _, ok := schema.ParseOrderID(id); !ok {
		return nil, fmt.Errorf("%q is not a payment id", id)
	}
	// Only reads: the store's TTLs are never used.
	files := command.NewOrderFiles(command.NewStore(rdb, time.Hour, time.Hour))
	o, err := files.Order(ctx, id)
	if errors.Is(err, command.ErrOrderNotFound) {
		return nil, fmt.Errorf("order %s is not in Redis (never created, or past its retention: GET /api/order reads it from ClickHouse)", id)
	}
	if err != nil {
		return nil, err
	}
	r := &orderReport{Order: o}
	events, err := files.Events(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		r.Events = append(r.Events, orderEvent{ID: e.ID, Type: e.Type, At: e.ID[:len(e.ID)-2], Status: e.Status.String(), Version: e.Version})
	}
	if r.Notifications, err = files.Notifications(ctx, id); err != nil {
		return nil, err
	}
	if o.Method == schema.MethodUSDTDirect {
		if r.Review, err = readReview(ctx, files, o); err != nil {
			return nil, err
		}
	}
	wh, err := readWebhook(ctx, webhookRef{d: dispatcher.NewWebhooks(rdb), payment: id})
	if err != nil {
		r.WebhookNote = err.Error()
	} else {
		r.Webhook = &wh
	}
	return r, nil
}

// readReview is a usdt_direct order's review: its state now, and every
// decision (OrderFiles.History).
func readReview(ctx context.Context, files *command.OrderFiles, o *schema.Order) (*reviewReport, error) {
	hist, err := files.History(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	r := &reviewReport{TxHash: o.TxHash, State: "none", Detail: "no transaction submitted yet", History: []usdt.Decision{}}
	if v := schema.USDTReviewOf(o); v != nil {
		r.State, r.Reason, r.Detail, r.Now = v.State, v.Reason, v.Describe(), v
	}
	r.History = append(r.History, hist...)
	return r, nil
}

func printOrder(w io.Writer, r *orderReport) error {
	o := r.Order
	amt, cur := o.Charge()
	fmt.Fprintf(w, "order %s  %s  %s %s via %s  v%d  mode %s\n", o.ID, o.Status, o.Amount, o.Currency, o.Method, o.Version, map[bool]string{true: "sandbox", false: "live"}[o.Sandbox])
	fmt.Fprintf(w, "  merchant %s  clientOrderId %q  created %s  completed %s\n", o.AppID, o.ClientOrderID, schema.WireTime(o.CreatedAt), schema.WireTime(o.CompletedAt))
	if o.ChargeCurrency != "" {
		fmt.Fprintf(w, "  charged %s %s at %s\n", amt, cur, o.FXRate)
	}
	if o.ProviderRef != "" {
		fmt.Fprintf(w, "  provider ref %s\n", o.ProviderRef)
	}
	fmt.Fprintf(w, "\nevents (%d in the stream)\n", len(r.Events))
	for _, e := range r.Events {
		fmt.Fprintf(w, "  %s  %-9s -> %-9s v%s\n", e.ID, e.Type, e.Status, e.Version)
	}
	fmt.Fprintf(w, "\nprovider notifications (%d)\n", len(r.Notifications))
	for _, n := range r.Notifications {
		fmt.Fprintf(w, "  %s  %s  %-9s %-18s moved=%v %s %s\n", schema.WireTime(n.At), n.Provider, n.Outcome, n.Verdict, n.Moved, n.Paid, n.Detail)
	}
	if rv := r.Review; rv != nil {
		fmt.Fprintf(w, "\nusdt review  %s (%s)  hash %s  network %s  payable %s\n  %s\n", rv.State, rv.Reason, cmp.Or(rv.TxHash, "-"), cmp.Or(o.Network, "-"), o.PayableAmount, rv.Detail)
		for _, d := range rv.History {
			fmt.Fprintf(w, "  %s  %-8s by %s  reason %q  note %q  hash %s\n", schema.WireTime(d.At), d.Outcome, d.By, d.Reason, d.Note, d.Hash)
		}
	}
	fmt.Fprintln(w, "\nwebhook")
	if r.Webhook == nil {
		fmt.Fprintf(w, "  %s\n", r.WebhookNote)
		return nil
	}
	return webhookOutput{w: w}.report(*r.Webhook)
}
