package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
)

const payoutUsage = `usage: gateway payout <subcommand> [--json] [--redis-url URL]

  list [--appid APPID]  payouts awaiting review and approved ones not yet
                        ended (bank payouts awaiting their reference, USDT
                        payouts with the sender); with --appid that
                        merchant's payouts, newest first, ended ones too
  show ID               one payout
  approve ID [--by NAME]
                        let it go; refused to whoever changed the merchant's
                        payout details in the last 24 h (maker-checker)
  reject ID --reason TEXT [--by NAME]
                        refuse it: its money goes back, the merchant reads TEXT
  paid ID --reference REF [--by NAME]
                        an approved bank payout was paid: record its reference
  paid --file CSV [--by NAME]
                        the same for each payout_id,reference line of CSV
                        ("-": standard input); a malformed file records nothing
Each change is in the audit log as the CLI's, by NAME (default: the OS user).
`

var payoutSynopsis = map[string]string{"list": "[--appid APPID] [--json]", "show": "ID [--json]",
	"approve": "ID [--by NAME] [--json]", "reject": "ID --reason TEXT [--by NAME] [--json]",
	"paid": "(ID --reference REF | --file CSV) [--by NAME] [--json]"}

// payoutCmd is the operator's side of payouts from the command line.
func payoutCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("payout", payoutUsage, payoutSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	synopsis := payoutSynopsis[sub]
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	appid := fs.String("appid", "", "list: this merchant's payouts")
	reason := fs.String("reason", "", "reject: why, as the merchant reads it")
	ref := fs.String("reference", "", "paid: the bank payout's reference")
	file := fs.String("file", "", "paid: a CSV of payout_id,reference lines (- for standard input)")
	by := fs.String("by", "", "approve, reject, paid: who, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	want := map[string]int{"list": 0, "show": 1, "approve": 1, "reject": 1, "paid": 1}[sub]
	if sub == "paid" && *file != "" {
		want = 0
	}
	if len(pos) != want {
		return fmt.Errorf("payout %s: want %s\n%s", sub, synopsis, payoutUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && sub != "list" && sub != "show" {
		return fmt.Errorf("payout %s: %w", sub, err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	p, err := cliPayouts(rdb)
	if err != nil {
		return err
	}
	out := output{w: stdout, json: *asJSON}
	var got payout.Payout
	switch sub {
	case "list":
		return payoutList(ctx, p, actor, *appid, out)
	case "show":
		got, err = p.Get(ctx, actor, pos[0])
	case "approve":
		got, err = p.Approve(ctx, actor, pos[0])
	case "reject":
		got, err = p.Reject(ctx, actor, pos[0], *reason)
	case "paid":
		if *file != "" {
			return payoutRefsFile(ctx, p, actor, *file, stdin, out)
		}
		got, err = p.Paid(ctx, actor, pos[0], *ref)
	}
	if err != nil {
		return fmt.Errorf("payout %s: %w", sub, err)
	}
	return out.value(viewPayout(got))
}

// cliPayouts is the operator's payouts use case over rdb.
func cliPayouts(rdb redis.UniversalClient) (*operator.Payouts, error) {
	// The process's payout settings (the maker-checker window above all),
	// as gateway serve reads them.
	cfg, err := envConfig()
	if err != nil {
		return nil, err
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return nil, err
	}
	s, err := payout.New(payoutConfig(cfg, time.Now), rdb, j, nil, nil)
	if err != nil {
		return nil, err
	}
	return operator.NewPayouts(s, nil), nil
}

func payoutList(ctx context.Context, p *operator.Payouts, actor access.Actor, appid string, out output) error {
	var list []payout.Payout
	if appid != "" {
		l, err := p.Of(ctx, actor, appid, 100)
		if err != nil {
			return fmt.Errorf("payout list: %w", err)
		}
		list = l
	} else {
		q, err := p.Queues(ctx, actor)
		if err != nil {
			return fmt.Errorf("payout list: %w", err)
		}
		list = append(q.Review, q.Sending...)
	}
	views := make([]payoutView, 0, len(list))
	for _, v := range list {
		views = append(views, viewPayout(v))
	}
	if out.json {
		return out.value(views)
	}
	if len(views) == 0 {
		return noRows(out.w, "payouts", "nothing awaits review or a reference")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUESTED\tID\tAPPID\tKIND\tAMOUNT\tFEE\tSTATE\tREVIEWER\tTX/REF")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\n", v.Requested, v.ID, v.AppID, v.Kind, v.Amount, v.Currency,
			v.Fee, v.State, v.Reviewer, v.TxHash+v.BankRef)
	}
	return tw.Flush()
}

func payoutRefsFile(ctx context.Context, p *operator.Payouts, actor access.Actor, name string, stdin io.Reader, out output) error {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("payout paid: %w", err)
		}
		defer f.Close()
		r = f
	}
	rep, err := p.ImportRefs(ctx, actor, r)
	if out.json {
		return errors.Join(out.value(rep), err)
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROW\tPAYOUT\tREFERENCE\tOUTCOME\tWHY")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Row, r.PayoutID, r.Reference, r.Outcome, r.Error)
	}
	_ = tw.Flush()
	if err != nil {
		return fmt.Errorf("payout paid: %w", err)
	}
	fmt.Fprintf(out.w, "%d paid, %d already recorded, %d refused\n", rep.Paid, rep.Already, rep.Refused)
	return nil
}

// payoutView is a payout as the CLI prints it.
type payoutView struct {
	ID          string `json:"id"`
	AppID       string `json:"appid"`
	Destination string `json:"destination"`
	Kind        string `json:"kind"`
	Currency    string `json:"currency"`
	Amount      string `json:"amount"`
	Fee         string `json:"fee"`
	State       string `json:"state"`
	RequestedBy string `json:"requestedBy"`
	Reviewer    string `json:"reviewer,omitempty"`
	Reason      string `json:"reason,omitempty"`
	TxHash      string `json:"txHash,omitempty"`
	BankRef     string `json:"bankReference,omitempty"`
	Requested   string `json:"requested"`
	Done        string `json:"done,omitempty"`
}

func viewPayout(p payout.Payout) payoutView {
	v := payoutView{ID: p.ID, AppID: p.AppID, Destination: p.Destination, Kind: string(p.Kind), Currency: p.Currency,
		Amount: p.Amount.String(), Fee: p.Fee.String(), State: string(p.State), RequestedBy: p.RequestedBy, Reviewer: p.Reviewer,
		Reason: p.Reason, TxHash: p.TxHash, BankRef: p.BankRef, Requested: p.Created.Format("2006-01-02T15:04:05Z")}
	if !p.Done.IsZero() {
		v.Done = p.Done.Format("2006-01-02T15:04:05Z")
	}
	return v
}
