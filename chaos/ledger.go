package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/ledger"
	"github.com/paygate/gateway/schema"
)

// ledgerKill9 starts two processes of role ledger (once: they read every
// event since the run began, a backlog to catch up on) and kills one of
// them with SIGKILL every fraction of a second, in the middle of its
// batches, restarting it each time, for the whole hold.
func ledgerKill9(ctx context.Context, c *Cluster, hold time.Duration) error {
	if err := c.startLedgers(ctx); err != nil {
		return err
	}
	end := time.Now().Add(hold)
	for i := 0; time.Now().Before(end); i++ {
		if err := sleep(ctx, time.Duration(200+rand.IntN(600))*time.Millisecond); err != nil {
			return err
		}
		p := c.ledgers[i%len(c.ledgers)]
		p.Kill9()
		c.ledgerKills++
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		if err := p.Start(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) startLedgers(ctx context.Context) error {
	if len(c.ledgers) > 0 {
		return nil
	}
	for _, name := range []string{"ledg1", "ledg2"} {
		p, err := newProc(c.cfg.Gateway, c.dataDir(), name, "ledger", c.gatewayEnv(c.RedisURL()))
		if err != nil {
			return err
		}
		c.ledgers = append(c.ledgers, p)
	}
	return c.startProcs(ctx, c.ledgers)
}

// ledgerProbe is the ledger scenario's reading of the cluster's Redis:
// the group's progress, the journal against the orders, the planted fault.
type ledgerProbe struct{ *Cluster }

// ledgerAudit is the ledger scenario's own audit, after the run's: the
// ledger group catches up, the journal verifies, every paid order has
// exactly one payment posting and each merchant's money is what its paid
// orders and its other journal entries say; then a double posting planted
// into Redis must be caught by the journal's verify.
func (c *Cluster) ledgerAudit(ctx context.Context) []string {
	p := ledgerProbe{c}
	j, err := journal.New(journal.Config{}, c.rdb, nil, nil)
	if err != nil {
		return []string{err.Error()}
	}
	bad, entries := p.settledJournal(ctx, j)
	c.ledgerPlant = p.plantDoublePosting(ctx, j)
	if !strings.HasPrefix(c.ledgerPlant, "detected") {
		bad = append(bad, "ledger: planted double posting "+c.ledgerPlant)
	}
	c.log.Info("ledger audit", "kills", c.ledgerKills, "entries", entries, "planted", c.ledgerPlant, "problems", len(bad))
	return bad
}

// settledJournal audits the journal against the orders until they agree
// or Settle is spent, the last audit being the answer. Payments still
// arrive after the load stops (a simulator's notifier retries a
// notification its first attempt could not deliver), and one landing
// between the reading of the orders and that of the entries is a paid
// order read as ready with a posting: a moment, not a fault. A posting
// missing or doubled stays, and fails every round.
func (c ledgerProbe) settledJournal(ctx context.Context, j *journal.Journal) ([]string, int) {
	deadline := time.Now().Add(c.cfg.Settle)
	for {
		bad, entries := c.auditJournal(ctx, j)
		if len(bad) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return bad, entries
		}
		c.log.Info("ledger audit again", "problems", len(bad), "first", bad[0])
		if err := sleep(ctx, 2*time.Second); err != nil {
			return bad, entries
		}
	}
}

// auditJournal is one round: the group caught up, the journal's own
// verify, and the payments against the orders.
func (c ledgerProbe) auditJournal(ctx context.Context, j *journal.Journal) ([]string, int) {
	if err := c.ledgerCaughtUp(ctx); err != nil {
		return []string{err.Error()}, 0
	}
	rep, err := j.Verify(ctx)
	if err != nil {
		return []string{"ledger verify: " + err.Error()}, 0
	}
	var bad []string
	for _, p := range rep.Problems {
		bad = append(bad, "ledger: "+p)
	}
	return append(bad, c.paymentsPostedOnce(ctx, j)...), rep.Entries
}

func (c ledgerProbe) ledgerCaughtUp(ctx context.Context) error {
	deadline := time.Now().Add(c.cfg.Settle)
	for {
		lag := ledger.GroupLag(ctx, c.rdb)
		var n int64
		for _, v := range lag {
			n += v
		}
		if len(lag) == schema.NumShards && n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ledger: %d events still not posted after %s", n, c.cfg.Settle)
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
}

// paymentsPostedOnce compares the journal with the orders in Redis: one
// payment entry per paid order (own-balance orders are the command side's
// balance_order), none for any other, and each merchant's total per
// currency equal to its paid orders' nets plus its other entries' lines.
func (c ledgerProbe) paymentsPostedOnce(ctx context.Context, j *journal.Journal) []string {
	orders, err := c.allOrders(ctx)
	if err != nil {
		return []string{"ledger: read orders: " + err.Error()}
	}
	entries := map[string]int{}
	want := map[string]schema.Amount{} // appid/currency → total
	for _, s := range schema.AllShards() {
		es, err := j.Entries(ctx, s, "", 10_000_000)
		if err != nil {
			return []string{"ledger: " + err.Error()}
		}
		for _, e := range es {
			if e.Kind == journal.KindPayment {
				entries[e.Ref]++
				continue
			}
			for _, p := range e.Postings {
				if strings.HasPrefix(p.Account, "merchant:"+e.AppID+":") {
					want[e.AppID+"/"+p.Currency] += p.Amount
				}
			}
		}
	}
	var bad []string
	for _, o := range orders {
		expect := 0
		if o.Status == schema.StatusPaid && !(o.PaidWithBalance && o.Version == 1) {
			expect = 1
			p, err := journal.Price(o)
			if err != nil {
				bad = append(bad, "ledger: "+err.Error())
				continue
			}
			want[o.AppID+"/"+o.Currency] += p.Net
		}
		if entries[o.ID] != expect {
			bad = append(bad, fmt.Sprintf("ledger: order %s (%s) has %d payment entries, want %d", o.ID, o.Status, entries[o.ID], expect))
		}
	}
	for key, n := range want {
		appid, cur, _ := strings.Cut(key, "/")
		b, err := j.Balance(ctx, appid, cur)
		if err != nil {
			return append(bad, "ledger: "+err.Error())
		}
		if b.Total() != n {
			bad = append(bad, fmt.Sprintf("ledger: merchant %s holds %d %s, its orders and entries say %d", appid, b.Total(), cur, n))
		}
	}
	return bad
}

// allOrders reads every order Redis holds, shard by shard.
func (c ledgerProbe) allOrders(ctx context.Context) ([]*schema.Order, error) {
	var out []*schema.Order
	for _, s := range schema.AllShards() {
		prefix := schema.OrderKey(s, "")
		iter := c.rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			id := strings.TrimPrefix(iter.Val(), prefix)
			if _, ok := schema.ParseOrderID(id); !ok {
				continue
			}
			h, err := c.rdb.HGetAll(ctx, iter.Val()).Result()
			if err != nil {
				return nil, err
			}
			o, err := schema.OrderFromHash(id, h)
			if err != nil {
				return nil, err
			}
			out = append(out, &o)
		}
		if err := iter.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// plantDoublePosting writes one payment's entry a second time with its
// balances, as a ledger that posted twice would: sums and balances still
// agree, so only the duplicate key gives it away. It undoes the plant
// after the verify, so later scenarios audit a sound journal.
func (c ledgerProbe) plantDoublePosting(ctx context.Context, j *journal.Journal) string {
	var victim *journal.Entry
	for _, s := range schema.AllShards() {
		es, err := j.Entries(ctx, s, "", 1000)
		if err != nil {
			return "not run: " + err.Error()
		}
		for _, e := range es {
			if e.Kind == journal.KindPayment {
				victim = &e
				break
			}
		}
		if victim != nil {
			break
		}
	}
	if victim == nil {
		return "not run: no payment posted"
	}
	id, err := c.applyEntry(ctx, *victim, 1, "")
	if err != nil {
		return "not run: " + err.Error()
	}
	rep, verr := j.Verify(ctx)
	_, uerr := c.applyEntry(ctx, *victim, -1, id)
	if err := errors.Join(verr, uerr); err != nil {
		return "not run: " + err.Error()
	}
	for _, p := range rep.Problems {
		if strings.Contains(p, victim.Key+" posted twice") {
			return "detected: " + p
		}
	}
	return "MISSED: " + victim.Key + " written twice and verify did not notice"
}

// applyEntry adds e's postings sign times to the balances and, for sign 1,
// appends a copy of e to the journal (returning its id); sign -1 deletes
// the copy del.
func (c ledgerProbe) applyEntry(ctx context.Context, e journal.Entry, sign int64, del string) (string, error) {
	s := schema.HomeShard(e.AppID)
	id := del
	if sign > 0 {
		var lines []string
		for _, p := range e.Postings {
			lines = append(lines, fmt.Sprintf("%s,%s,%d", p.Account, p.Currency, int64(p.Amount)))
		}
		var err error
		id, err = c.rdb.XAdd(ctx, &redis.XAddArgs{Stream: schema.JournalKey(s), Values: []any{"tx", e.Key, "k", e.Kind,
			"m", e.AppID, "ref", e.Ref, "at", e.At.UnixMilli(), "memo", "", "by", "", "p", strings.Join(lines, ";")}}).Result()
		if err != nil {
			return "", err
		}
	} else if err := c.rdb.XDel(ctx, schema.JournalKey(s), del).Err(); err != nil {
		return "", err
	}
	for _, p := range e.Postings {
		hash, field := schema.PlatformAccountsKey(s), p.Account+":"+p.Currency
		if rest, ok := strings.CutPrefix(p.Account, "merchant:"+e.AppID+":"); ok {
			hash, field = schema.AccountsKey(e.AppID), rest+":"+p.Currency
		}
		if err := c.rdb.HIncrBy(ctx, hash, field, sign*int64(p.Amount)).Err(); err != nil {
			return id, err
		}
	}
	return id, nil
}
