package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// cliCommon are the flags every usdt subcommand takes.
type cliCommon struct {
	redis *redisFlags
	json  *bool
}

func cliFlags(name string, stderr io.Writer) (*flag.FlagSet, cliCommon) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	onlyOwnFlags(fs, name[strings.LastIndex(name, " ")+1:])
	return fs, cliCommon{
		redis: bindRedis(fs),
		json:  fs.Bool("json", false, "print JSON"),
	}
}

func (c cliCommon) open(ctx context.Context) (redis.UniversalClient, error) {
	return c.redis.open(ctx)
}

func (c cliCommon) output(w io.Writer) output { return output{w: w, json: *c.json} }

// usdtDeskCmd is the administrator's desk: list, approve, reject.
func usdtDeskCmd(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	fs, common := cliFlags("usdt "+sub, stderr)
	state := fs.String("state", command.DeskWaiting, "reviews: waiting, failed or all")
	note := fs.String("note", "", "approve, reject: what the administrator saw")
	reason := fs.String("reason", "", "reject: why, as the payer will read it")
	by := fs.String("by", os.Getenv("USER"), "approve, reject: who decides (recorded as admin:NAME)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if (sub == "reviews") != (len(pos) == 0) || len(pos) > 1 {
		fmt.Fprint(stderr, usdtUsage)
		return fmt.Errorf("usdt %s: wrong arguments %q", sub, pos)
	}
	rdb, err := common.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	store, err := deskStore(rdb)
	if err != nil {
		return err
	}
	desk, out := command.NewUSDTReview(store), common.output(stdout)
	if sub == "reviews" {
		orders, err := desk.Reviews(ctx, *state)
		if err != nil || out.json {
			return errors.Join(err, out.value(deskRows(orders)))
		}
		printDesk(stdout, orders)
		return nil
	}
	d := usdt.Decision{By: "admin:" + *by, Note: *note, Reason: *reason}
	o, err := decideByHand(ctx, desk, sub, pos[0], d)
	if err != nil {
		return err
	}
	return out.value(deskRow(o))
}

// decideByHand applies an administrator's decision to the hash the order
// holds under review.
func decideByHand(ctx context.Context, desk *command.USDTReview, sub, id string, d usdt.Decision) (*schema.Order, error) {
	switch {
	case sub == "approve" && d.Note == "":
		return nil, errors.New("usdt approve: --note is required: say what you checked")
	case sub == "reject" && d.Reason == "":
		return nil, errors.New("usdt reject: --reason is required: the payer reads it")
	}
	o, err := desk.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.Status == schema.StatusPaid {
		return nil, fmt.Errorf("order %s is paid already", id)
	}
	if o.TxHash == "" {
		return nil, fmt.Errorf("order %s has no transaction hash under review", id)
	}
	if sub == "approve" {
		return desk.Approve(ctx, id, o.TxHash, d)
	}
	return desk.Reject(ctx, id, o.TxHash, d)
}

// deskStore is the order store with the process configuration's TTLs and
// retention, read from the environment as `gateway serve` reads them (a
// paid order must stay in Redis as long as the gateway's own).
// A bad GATEWAY_* value is an error here as it is for serve.
func deskStore(rdb redis.UniversalClient) (*command.Store, error) {
	cfg := platform.Defaults()
	cfg.Bind(flag.NewFlagSet("env", flag.ContinueOnError)) // applies GATEWAY_* values; nothing is parsed
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	store := command.NewStore(rdb, cfg.OrderTTL, cfg.OrderRetention)
	ttls, _ := platform.ParseMethodTTLs(cfg.OrderTTLMethods) // Validate read it
	if d, ok := ttls[string(schema.MethodUSDTDirect)]; ok {
		store.WithMethodTTLs(map[schema.Method]time.Duration{schema.MethodUSDTDirect: d})
	}
	return store, nil
}

// deskView is one order as the desk shows it.
type deskView struct {
	PaymentID string `json:"paymentId"`
	Status    string `json:"status"`
	Sandbox   bool   `json:"sandbox"`
	Network   string `json:"network"`
	Payable   string `json:"payableAmount"`
	TxHash    string `json:"txHash,omitempty"`
	Review    string `json:"review,omitempty"`
	Reason    string `json:"reviewReason,omitempty"`
	Next      string `json:"nextAction,omitempty"`
	Updated   string `json:"updatedAt"`
}

func deskRow(o *schema.Order) deskView {
	return deskView{PaymentID: o.ID, Status: o.Status.String(), Sandbox: o.Sandbox, Network: o.Network, Payable: o.PayableAmount,
		TxHash: o.TxHash, Review: o.Review, Reason: o.ReviewReason, Next: o.NextAction, Updated: schema.WireTime(o.UpdatedAt)}
}

func deskRows(orders []*schema.Order) []deskView {
	out := make([]deskView, len(orders))
	for i, o := range orders {
		out[i] = deskRow(o)
	}
	return out
}

func printDesk(w io.Writer, orders []*schema.Order) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PAYMENT ID\tSTATUS\tNETWORK\tPAYABLE\tREVIEW\tREASON\tUPDATED\tHASH")
	for _, o := range orders {
		v := deskRow(o)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.PaymentID, v.Status, v.Network, v.Payable,
			cmp.Or(v.Review, "queued"), v.Reason, v.Updated, v.TxHash)
	}
	_ = tw.Flush()
}
