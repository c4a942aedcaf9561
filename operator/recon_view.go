package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
	"github.com/paygate/gateway/schema"
)

// ReconKinds are the findings' kinds in the order a report lists them.
var ReconKinds = []recon.Kind{recon.MissingWithUs, recon.MissingAtProvider, recon.AmountDiffers, recon.FeeDiffers, recon.Duplicate}

// KindCount is how many findings of a kind an import had.
type KindCount struct {
	Kind recon.Kind `json:"kind"`
	N    int        `json:"n"`
}

// ReconFinding is one finding as a report shows it.
type ReconFinding struct {
	Kind     recon.Kind `json:"kind"`
	Evidence string     `json:"evidence"`
}

// ReconAmount is an amount in a currency.
type ReconAmount struct {
	Currency string        `json:"currency"`
	Amount   schema.Amount `json:"amount"`
}

// ReconReport is what an import did: the match's counts, the first
// findings with their evidence (the exceptions queue has them all), what
// the lines posted now cleared off the channel's receivable, and whether
// the same file had been imported before (then nothing changed).
type ReconReport struct {
	Channel, Day, SHA256, Key string
	Bytes, Lines, Payments    int
	Matched, Posted           int
	Counts                    []KindCount
	Findings                  []ReconFinding
	More                      int      // findings beyond those shown
	Unposted                  []string // matched, but the ledger has no such payment to clear (the first shown)
	Again                     bool
	Cleared                   []ReconAmount
}

func report(ch string, day time.Time, size int, res recon.Result, shown int) ReconReport {
	rep := ReconReport{Channel: ch, Day: day.Format(time.DateOnly), SHA256: res.SHA256, Bytes: size, Lines: res.Lines,
		Payments: res.Payments, Matched: len(res.Matched), Posted: res.Posted, Unposted: res.Unposted[:min(shown, len(res.Unposted))], Again: res.Again, Key: res.Key,
		Cleared: amounts(res.Cleared)}
	for _, k := range ReconKinds {
		rep.Counts = append(rep.Counts, KindCount{Kind: k, N: res.Count(k)})
	}
	for i, f := range res.Findings {
		if i == shown {
			rep.More = len(res.Findings) - shown
			break
		}
		rep.Findings = append(rep.Findings, ReconFinding{Kind: f.Kind, Evidence: f.Evidence()})
	}
	return rep
}

func amounts(m map[string]schema.Amount) []ReconAmount {
	out := make([]ReconAmount, 0, len(m))
	for cur, n := range m {
		out = append(out, ReconAmount{Currency: cur, Amount: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out
}

// ReconLast is a channel's last import, as the receivables table shows it.
type ReconLast struct {
	Day     string        `json:"day"`
	At      time.Time     `json:"at"`
	By      string        `json:"by"`
	Again   bool          `json:"again"`
	Cleared []ReconAmount `json:"cleared"`
}

// remember keeps rep as its channel's last import.
func (r *Reconciliation) remember(ctx context.Context, actor access.Actor, rep ReconReport) error {
	b, err := json.Marshal(ReconLast{Day: rep.Day, At: r.now().UTC(), By: By(actor), Again: rep.Again, Cleared: rep.Cleared})
	if err != nil {
		return fmt.Errorf("encode the last import: %w", err)
	}
	if err := r.rdb.HSet(ctx, schema.ReconLastKey, rep.Channel, b).Err(); err != nil {
		return fmt.Errorf("keep the last import: %w", err)
	}
	return nil
}

// Receivable is what a channel's provider owes the platform now in one
// currency (Owed: the receivable account's balance, negated), with the
// channel's last import and what it cleared in this currency.
type Receivable struct {
	Channel, Currency string
	Owed              schema.Amount
	Last              *ReconLast
	Cleared           schema.Amount
}

// Receivables lists every channel's receivable per currency, sorted, the
// channels imported for but owing nothing included.
func (r *Reconciliation) Receivables(ctx context.Context, actor access.Actor) ([]Receivable, error) {
	if err := allow(actor, access.PermOpReconRead); err != nil {
		return nil, err
	}
	bals, err := r.j.Receivables(ctx)
	if err != nil {
		return nil, err
	}
	last, err := r.lasts(ctx)
	if err != nil {
		return nil, err
	}
	rows := map[[2]string]*Receivable{}
	row := func(ch, cur string) *Receivable {
		k := [2]string{ch, cur}
		if rows[k] == nil {
			rows[k] = &Receivable{Channel: ch, Currency: cur, Last: last[ch]}
		}
		return rows[k]
	}
	for ch, byCur := range bals {
		for cur, n := range byCur {
			row(ch, cur).Owed = -n
		}
	}
	for ch, l := range last {
		for _, c := range l.Cleared {
			row(ch, c.Currency).Cleared = c.Amount
		}
	}
	out := make([]Receivable, 0, len(rows))
	for _, v := range rows {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Channel < out[j].Channel || out[i].Channel == out[j].Channel && out[i].Currency < out[j].Currency
	})
	return out, nil
}

func (r *Reconciliation) lasts(ctx context.Context) (map[string]*ReconLast, error) {
	h, err := r.rdb.HGetAll(ctx, schema.ReconLastKey).Result()
	if err != nil {
		return nil, fmt.Errorf("read the last imports: %w", err)
	}
	out := make(map[string]*ReconLast, len(h))
	for ch, v := range h {
		var l ReconLast
		if json.Unmarshal([]byte(v), &l) == nil {
			out[ch] = &l
		}
	}
	return out, nil
}

// Channels are the configured channels a statement can be imported for,
// by method, live before sandbox.
func (r *Reconciliation) Channels(actor access.Actor) ([]string, error) {
	if err := allow(actor, access.PermOpReconRead); err != nil {
		return nil, err
	}
	var out []string
	if r.conf == nil {
		return out, nil
	}
	for _, sandbox := range []bool{false, true} {
		for _, m := range families.Methods() {
			for _, id := range r.conf.Channels(m, sandbox) {
				out = append(out, channel.Ref{Sandbox: sandbox, Method: m, ID: id}.String())
			}
		}
	}
	return out, nil
}
