package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/schema"
)

// chaosPayouts is how many approved USDT payouts the payouts scenario has
// the senders send, and their lease: short, so a killed sender's payouts
// are looked up and ended within the audit's settle time.
const (
	chaosPayouts     = 40
	chaosPayoutLease = "5s"
	payoutAmount     = 1_000 // 10.00 USD each
	payoutFee        = 25
)

// payoutsChaos is the payouts scenario's seeding and audit over a cluster:
// the scenario's own, apart from the cluster's.
type payoutsChaos struct{ *Cluster }

// tronSandboxPath is where a node serves the TRON simulator (and its payout
// endpoints): the simulator's SandboxPath, named here because a use case
// imports no door; the scenario fails if they part.
const tronSandboxPath = "/sandbox/usdt/tron"

// payoutsKill9 approves chaosPayouts USDT payouts of a merchant of its own,
// starts two payout senders on the sandbox rail and kills one of them with
// SIGKILL every fraction of a second, mid-send, restarting it each time,
// for the whole hold.
func payoutsKill9(ctx context.Context, c *Cluster, hold time.Duration) error {
	if err := (payoutsChaos{c}).seedPayouts(ctx); err != nil {
		return fmt.Errorf("payouts: seed: %w", err)
	}
	for _, name := range []string{"pay1", "pay2"} {
		p, err := newProc(c.cfg.Gateway, c.dataDir(), name, "payouts", append(c.gatewayEnv(c.RedisURL()),
			"GATEWAY_PAYOUT_RAIL=sandbox", "GATEWAY_PAYOUT_LEASE="+chaosPayoutLease,
			// The simulated chains are served by the command processes.
			"GATEWAY_PUBLIC_URL=http://"+c.Proc("cq1").Addr))
		if err != nil {
			return err
		}
		c.payoutProcs = append(c.payoutProcs, p)
	}
	if err := c.startProcs(ctx, c.payoutProcs); err != nil {
		return err
	}
	end := time.Now().Add(hold)
	for i := 0; time.Now().Before(end); i++ {
		if err := sleep(ctx, time.Duration(100+rand.IntN(400))*time.Millisecond); err != nil {
			return err
		}
		p := c.payoutProcs[i%len(c.payoutProcs)]
		p.Kill9()
		c.payoutKills++
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		if err := p.Start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// payoutStore is a payout store over the run's Redis, without cooling-off.
func (c payoutsChaos) payoutStore() (*payout.Store, *journal.Journal, error) {
	j, err := journal.New(journal.Config{}, c.rdb, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	cfg := payout.Defaults()
	cfg.CoolingOff = 0
	s, err := payout.New(cfg, c.rdb, j, nil, nil)
	return s, j, err
}

// seedPayouts makes a merchant of the scenario's own with a USD balance, a
// TRC20 destination, and chaosPayouts payouts requested and approved.
func (c payoutsChaos) seedPayouts(ctx context.Context) error {
	s, j, err := c.payoutStore()
	if err != nil {
		return err
	}
	var acct Account
	if err := c.cli(ctx, &acct, "", "merchant", "create", "--name", "chaos payouts", "--sandbox", "--json"); err != nil {
		return err
	}
	c.payoutApp = acct.AppID
	c.payoutFunded = chaosPayouts * (payoutAmount + payoutFee) * 2
	if _, _, err := j.TopUp(ctx, "chaos-payouts", acct.AppID, "USD", schema.Amount(c.payoutFunded), nil); err != nil {
		return err
	}
	e := audit.Entry{At: time.Now(), ActorID: "chaos", Realm: audit.RealmCLI, Role: "", Action: "payout.request", Source: "chaos"}
	d, err := s.AddDestination(ctx, payout.Destination{AppID: acct.AppID, Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}, "cli:chaos", e)
	if err != nil {
		return err
	}
	for range chaosPayouts {
		p, _, err := s.Request(ctx, payout.Ask{AppID: acct.AppID, Destination: d.ID, Currency: "USD", Amount: payoutAmount, By: "api",
			Limits: payout.Limits{Fee: payoutFee}}, e)
		if err != nil {
			return err
		}
		if _, err := s.Approve(ctx, p.ID, payout.Decider{By: "cli:chaos-checker", Key: "cli:chaos-checker"}, e); err != nil {
			return err
		}
	}
	return nil
}

// payoutsAudit: every payout ends paid within the settle time (0 lost), the
// simulated chain made exactly one transfer under each payout's reference
// (0 sent twice) with the hash the payout records, and the merchant's money
// is what it was funded less each payout and its fee, with the journal
// verifying (money conserved).
func (c payoutsChaos) payoutsAudit(ctx context.Context) []string {
	for _, p := range c.payoutProcs {
		p.Stop()
	}
	s, j, err := c.payoutStore()
	if err != nil {
		return []string{"payouts: " + err.Error()}
	}
	list, bad := c.payoutsSettled(ctx, s)
	rail := rails.NewSim("http://"+c.Proc("cq1").Addr+tronSandboxPath, nil)
	twice, lost := 0, 0
	for _, p := range list {
		a, err := rail.Count(ctx, p.Reference())
		switch {
		case err != nil:
			bad = append(bad, "payouts: look up "+p.ID+": "+err.Error())
		case a.Transfers > 1:
			twice++
			bad = append(bad, fmt.Sprintf("payouts: %s sent %d times", p.ID, a.Transfers))
		case p.State != payout.Paid || a.Transfers == 0 || a.Hash != p.TxHash:
			lost++
			bad = append(bad, fmt.Sprintf("payouts: %s is %s with %q; the chain has %d transfers (%q)", p.ID, p.State, p.TxHash, a.Transfers, a.Hash))
		}
	}
	b, err := j.Balance(ctx, c.payoutApp, "USD")
	want := schema.Amount(c.payoutFunded - int64(len(list)*(payoutAmount+payoutFee)))
	if err != nil || b.Available != want || b.PayoutHold != 0 {
		bad = append(bad, fmt.Sprintf("payouts: merchant holds %+v (%v), want %d available and nothing held", b, err, want))
	}
	rep, err := j.Verify(ctx)
	if err != nil {
		bad = append(bad, "payouts: journal verify: "+err.Error())
	} else {
		for _, p := range rep.Problems {
			bad = append(bad, "payouts: journal: "+p)
		}
	}
	c.log.Info("payouts audit", "kills", c.payoutKills, "payouts", len(list), "sent_twice", twice, "lost", lost, "problems", len(bad))
	return bad
}

// payoutsSettled waits, up to the settle time, for every payout of the
// scenario's merchant to end, and answers them.
func (c payoutsChaos) payoutsSettled(ctx context.Context, s *payout.Store) ([]payout.Payout, []string) {
	// The senders were stopped: one more, on its own, finishes what the
	// kills left (a lease ending, then a lookup).
	p, err := newProc(c.cfg.Gateway, c.dataDir(), "pay3", "payouts", append(c.gatewayEnv(c.RedisURL()),
		"GATEWAY_PAYOUT_RAIL=sandbox", "GATEWAY_PAYOUT_LEASE="+chaosPayoutLease, "GATEWAY_PUBLIC_URL=http://"+c.Proc("cq1").Addr))
	if err == nil {
		err = p.Start(ctx)
		defer p.Stop()
	}
	if err != nil {
		return nil, []string{"payouts: start the last sender: " + err.Error()}
	}
	deadline := time.Now().Add(c.cfg.Settle)
	for {
		list, err := s.List(ctx, c.payoutApp, 0, 100)
		if err != nil {
			return nil, []string{"payouts: list: " + err.Error()}
		}
		ended := 0
		for _, p := range list {
			if p.State.Final() {
				ended++
			}
		}
		if ended == len(list) && len(list) == chaosPayouts || time.Now().After(deadline) {
			if len(list) != chaosPayouts {
				return list, []string{fmt.Sprintf("payouts: %d payouts, want %d", len(list), chaosPayouts)}
			}
			return list, nil
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return list, []string{err.Error()}
		}
	}
}
