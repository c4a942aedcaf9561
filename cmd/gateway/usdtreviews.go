package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/schema"
)

// cliCommon are the flags every usdt subcommand takes.
type cliCommon struct {
	redis *redisFlags
	json  *bool
}

// Help asked for goes to stdout, as every command's does (subFlags).
func cliFlags(name string, args []string, stdout, stderr io.Writer) (*flag.FlagSet, cliCommon) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if slices.ContainsFunc(args, isHelp) {
		fs.SetOutput(stdout)
	}
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

// usdtReviewsCmd is the administrator's USDT reviews: list, approve, reject, attach.
func usdtReviewsCmd(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	fs, common := cliFlags("usdt "+sub, args, stdout, stderr)
	state := fs.String("state", command.BacklogWaiting, "reviews: waiting, failed or all")
	note := fs.String("note", "", "approve, reject, attach: what the administrator saw")
	reason := fs.String("reason", "", "reject: why, as the payer will read it")
	by := fs.String("by", "", "approve, reject, attach: who decides (recorded as admin:NAME; default: the OS user)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != map[string]int{"reviews": 0, "approve": 1, "reject": 1, "attach": 2}[sub] {
		fmt.Fprint(stderr, usdtUsage)
		return fmt.Errorf("usdt %s: wrong arguments %q", sub, pos)
	}
	var actor access.Actor
	if sub != "reviews" {
		if actor, err = reviewDecision(sub, *note, *reason, *by, given(fs, "by")); err != nil {
			return err
		}
	}
	rdb, err := common.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	store, window, err := cliOrderStore(rdb)
	if err != nil {
		return err
	}
	review, out := command.NewUSDTReview(store).WithWindow(window), common.output(stdout)
	reviews := operator.NewUSDTReviews(review, command.NewUSDTBacklog(store), audit.NewLog(rdb))
	if sub == "reviews" {
		orders, err := command.NewUSDTBacklog(store).Reviews(ctx, *state)
		if err != nil || out.json {
			return errors.Join(err, out.value(reviewRows(orders)))
		}
		printReviews(stdout, orders)
		return nil
	}
	var o *schema.Order
	switch sub {
	case "attach":
		o, err = reviews.Attach(ctx, actor, pos[0], pos[1], *note)
	case "approve":
		o, err = reviews.Approve(ctx, actor, pos[0], *note)
	default:
		o, err = reviews.Reject(ctx, actor, pos[0], *reason, *note)
	}
	if err != nil {
		return fmt.Errorf("usdt %s: %w", sub, err)
	}
	return out.value(reviewRow(o))
}

// reviewDecision checks a decision's flags before anything is connected to:
// the note (approve, attach) or the reason (reject), and who decides.
func reviewDecision(sub, note, reason, by string, byGiven bool) (access.Actor, error) {
	switch {
	case sub != "reject" && note == "":
		return access.Actor{}, fmt.Errorf("usdt %s: --note is required: say what you checked", sub)
	case sub == "reject" && reason == "":
		return access.Actor{}, errors.New("usdt reject: --reason is required: the payer reads it")
	}
	actor, err := cliAuditActor(by, byGiven)
	if err != nil {
		return actor, fmt.Errorf("usdt %s: %w", sub, err)
	}
	return actor, nil
}

// cliOrderStore is the order store with the process configuration's TTLs and
// retention, read from the environment as `gateway serve` reads them (a
// paid order must stay in Redis as long as the gateway's own).
// A bad GATEWAY_* value is an error here as it is for serve.
func cliOrderStore(rdb redis.UniversalClient) (*command.Store, time.Duration, error) {
	cfg, err := envConfig()
	if err != nil {
		return nil, 0, err
	}
	store := command.NewStore(rdb, cfg.OrderTTL, cfg.OrderRetention)
	if d, ok := cfg.OrderTTLMethods[schema.MethodUSDTDirect]; ok {
		store.WithMethodTTLs(map[schema.Method]time.Duration{schema.MethodUSDTDirect: d})
	}
	return store, cfg.USDTReview, nil
}

// reviewView is one order as `gateway usdt reviews` shows it.
type reviewView struct {
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
	// State is the review's state at this moment (schema.USDTReviewOf),
	// Detail the same in plain words, NextCheck when the reviewer looks
	// again while it waits.
	State     string `json:"state"`
	Detail    string `json:"detail"`
	NextCheck string `json:"nextCheckAt,omitempty"`
}

func reviewRow(o *schema.Order) reviewView {
	v := reviewView{PaymentID: o.ID, Status: o.Status.String(), Sandbox: o.Sandbox, Network: o.Network, Payable: o.PayableAmount,
		TxHash: o.TxHash, Review: o.Review, Reason: o.ReviewReason, Next: o.NextAction, Updated: schema.WireTime(o.UpdatedAt),
		State: "none", Detail: "no transaction submitted yet"}
	if r := schema.USDTReviewOf(o); r != nil {
		v.State, v.Reason, v.Detail, v.NextCheck = r.State, r.Reason, r.Describe(), r.NextCheckAt
	}
	return v
}

func reviewRows(orders []*schema.Order) []reviewView {
	out := make([]reviewView, len(orders))
	for i, o := range orders {
		out[i] = reviewRow(o)
	}
	return out
}

func printReviews(w io.Writer, orders []*schema.Order) {
	if len(orders) == 0 {
		_ = noRows(w, "USDT reviews", "")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PAYMENT ID\tSTATUS\tNETWORK\tPAYABLE\tSTATE\tREASON\tNEXT CHECK\tUPDATED\tHASH")
	for _, o := range orders {
		v := reviewRow(o)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.PaymentID, v.Status, v.Network, v.Payable,
			v.State, v.Reason, cmp.Or(v.NextCheck, "-"), v.Updated, cmp.Or(v.TxHash, "-"))
	}
	_ = tw.Flush()
}
