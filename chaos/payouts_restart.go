package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/schema"
)

// restartPayoutsMax bounds the payouts the Redis-restart scenario asks
// for, so its merchant's funding covers them all.
const restartPayoutsMax = 400

// payoutRestart is the Redis-restart scenario's own: its merchant, its
// destination, what it asked for and what the asking met, its senders.
type payoutRestart struct {
	app, dest  string
	funded     int64
	mu         sync.Mutex
	asked      []string // payouts the store acknowledged, each once
	retries    int      // requests that failed and were asked again under the same key
	replayed   int      // retries the store answered with the payout a lost answer had made
	procs      []*Proc
	restartErr error
}

// payoutsRedisRestart has two payout senders sending on the sandbox rail
// while a client asks for auto-approved USDT payouts, each under an
// idempotency key it asks again with until it is answered; a third into
// the hold, Redis is killed with SIGKILL and started again on its AOF.
func payoutsRedisRestart(ctx context.Context, c *Cluster, hold time.Duration) error {
	pr, err := (payoutsChaos{c}).seedRestart(ctx)
	if err != nil {
		return fmt.Errorf("payouts redis-restart: seed: %w", err)
	}
	c.payoutRestart = pr
	for _, name := range []string{"payr1", "payr2"} {
		p, err := (payoutsChaos{c}).sender(name)
		if err != nil {
			return err
		}
		pr.procs = append(pr.procs, p)
		c.payoutProcs = append(c.payoutProcs, p)
	}
	if err := c.startProcs(ctx, pr.procs); err != nil {
		return err
	}
	askCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); (payoutsChaos{c}).ask(askCtx, pr) }()
	err = sleep(ctx, hold/3)
	if err == nil {
		err = c.redisKill9(ctx, nil)
	}
	if err == nil {
		err = sleep(ctx, hold-hold/3)
	}
	stop()
	<-done
	return err
}

// sender is a payout sender on the sandbox rail, the chains served by cq1.
func (c payoutsChaos) sender(name string) (*Proc, error) {
	return newProc(c.cfg.Gateway, c.dataDir(), name, "payouts", append(c.gatewayEnv(c.RedisURL()),
		"GATEWAY_PAYOUT_RAIL=sandbox", "GATEWAY_PAYOUT_LEASE="+chaosPayoutLease, "GATEWAY_PUBLIC_URL=http://"+c.Proc("cq1").Addr))
}

// seedRestart makes the scenario's merchant, funded for every payout it
// may ask for, with a TRC20 destination usable at once.
func (c payoutsChaos) seedRestart(ctx context.Context) (*payoutRestart, error) {
	s, j, err := c.payoutStore()
	if err != nil {
		return nil, err
	}
	var acct Account
	if err := c.cli(ctx, &acct, "", "merchant", "create", "--name", "chaos payouts redis", "--sandbox", "--json"); err != nil {
		return nil, err
	}
	pr := &payoutRestart{app: acct.AppID, funded: restartPayoutsMax * (payoutAmount + payoutFee)}
	if _, _, err := j.TopUp(ctx, "chaos-payouts-redis", acct.AppID, "USD", schema.Amount(pr.funded), nil); err != nil {
		return nil, err
	}
	d, err := s.AddDestination(ctx, payout.Destination{AppID: acct.AppID, Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"},
		"cli:chaos", restartEntry())
	if err != nil {
		return nil, err
	}
	pr.dest = d.ID
	return pr, nil
}

func restartEntry() audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "chaos", Realm: audit.RealmCLI, Action: "payout.request", Source: "chaos"}
}

// ask asks for payouts until ctx ends, one every 50 ms: each under its own
// key, asked again (the same key) after every failure until answered, as
// a merchant's client does; the last one asked is seen through even after
// ctx ends, so no acknowledged request is left half known.
func (c payoutsChaos) ask(ctx context.Context, pr *payoutRestart) {
	s, _, err := c.payoutStore()
	if err != nil {
		pr.restartErr = err
		return
	}
	for i := 0; ctx.Err() == nil && i < restartPayoutsMax; i++ {
		a := payout.Ask{AppID: pr.app, Destination: pr.dest, Currency: "USD", Amount: payoutAmount, By: "api",
			IdempotencyKey: fmt.Sprintf("chaos-redis-%d", i), Limits: payout.Limits{Fee: payoutFee, AutoApproveBelow: 2 * payoutAmount}}
		for tries := 0; ; tries++ {
			p, replayed, err := s.Request(context.WithoutCancel(ctx), a, restartEntry())
			if err == nil {
				pr.mu.Lock()
				pr.asked = append(pr.asked, p.ID)
				if replayed && tries > 0 {
					pr.replayed++
				}
				pr.mu.Unlock()
				break
			}
			pr.mu.Lock()
			pr.retries++
			pr.mu.Unlock()
			if tries > 200 {
				pr.restartErr = errors.Join(pr.restartErr, fmt.Errorf("request %s: %w", a.IdempotencyKey, err))
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		_ = sleep(ctx, 50*time.Millisecond)
	}
}

// payoutsRestartAudit: every payout the client was answered for exists, and
// no other (0 lost, none made twice by an asked-again request); each ends
// paid within the settle time with exactly one transfer under its
// reference on the simulated chain, whose hash it records (0 sent twice, 0
// lost); the merchant holds its funding less every payout and its fee,
// and the journal verifies (money conserved).
func (c payoutsChaos) payoutsRestartAudit(ctx context.Context) []string {
	pr := c.payoutRestart
	if pr == nil {
		return []string{"payouts redis-restart: never seeded"}
	}
	for _, p := range pr.procs {
		p.Stop()
	}
	bad := []string{}
	if pr.restartErr != nil {
		bad = append(bad, "payouts redis-restart: asking: "+pr.restartErr.Error())
	}
	s, j, err := c.payoutStore()
	if err != nil {
		return append(bad, "payouts redis-restart: "+err.Error())
	}
	list, more := c.restartSettled(ctx, s, pr)
	bad = append(bad, more...)
	asked := map[string]bool{}
	for _, id := range pr.asked {
		asked[id] = true
	}
	rail := rails.NewSim("http://"+c.Proc("cq1").Addr+tronSandboxPath, nil)
	twice, lost, paid := 0, 0, 0
	for _, p := range list {
		a, err := rail.Count(ctx, p.Reference())
		switch {
		case !asked[p.ID]:
			bad = append(bad, "payouts redis-restart: "+p.ID+" exists but was never answered: a request made twice")
		case err != nil:
			bad = append(bad, "payouts redis-restart: look up "+p.ID+": "+err.Error())
		case a.Transfers > 1:
			twice++
			bad = append(bad, fmt.Sprintf("payouts redis-restart: %s sent %d times", p.ID, a.Transfers))
		case p.State != payout.Paid || a.Transfers == 0 || a.Hash != p.TxHash:
			lost++
			bad = append(bad, fmt.Sprintf("payouts redis-restart: %s is %s with %q; the chain has %d transfers (%q)", p.ID, p.State, p.TxHash, a.Transfers, a.Hash))
		default:
			paid++
		}
		delete(asked, p.ID)
	}
	for id := range asked {
		lost++
		bad = append(bad, "payouts redis-restart: "+id+" was answered and is gone")
	}
	b, err := j.Balance(ctx, pr.app, "USD")
	want := schema.Amount(pr.funded - int64(len(list)*(payoutAmount+payoutFee)))
	if err != nil || b.Available != want || b.PayoutHold != 0 {
		bad = append(bad, fmt.Sprintf("payouts redis-restart: merchant holds %+v (%v), want %d available and nothing held", b, err, want))
	}
	rep, err := j.Verify(ctx)
	if err != nil {
		bad = append(bad, "payouts redis-restart: journal verify: "+err.Error())
	} else {
		for _, p := range rep.Problems {
			bad = append(bad, "payouts redis-restart: journal: "+p)
		}
	}
	c.log.Info("payouts redis-restart audit", "answered", len(pr.asked), "asked_again", pr.retries, "replayed", pr.replayed,
		"payouts", len(list), "paid", paid, "sent_twice", twice, "lost", lost, "problems", len(bad))
	return bad
}

// restartSettled has one more sender finish what the restart left, and
// waits, up to the settle time, for every payout of the scenario's
// merchant to end.
func (c payoutsChaos) restartSettled(ctx context.Context, s *payout.Store, pr *payoutRestart) ([]payout.Payout, []string) {
	p, err := c.sender("payr3")
	if err == nil {
		c.payoutProcs = append(c.payoutProcs, p)
		err = p.Start(ctx)
		defer p.Stop()
	}
	if err != nil {
		return nil, []string{"payouts redis-restart: start the last sender: " + err.Error()}
	}
	deadline := time.Now().Add(c.cfg.Settle)
	for {
		list, err := c.restartPayouts(ctx, s, pr.app)
		if err != nil && time.Now().After(deadline) {
			return nil, []string{"payouts redis-restart: list: " + err.Error()}
		}
		ended := 0
		for _, p := range list {
			if p.State.Final() {
				ended++
			}
		}
		if err == nil && ended == len(list) || time.Now().After(deadline) {
			return list, nil
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return list, []string{err.Error()}
		}
	}
}

// restartPayouts is every payout of appid, read from its list whole.
func (c payoutsChaos) restartPayouts(ctx context.Context, s *payout.Store, appid string) ([]payout.Payout, error) {
	ids, err := c.rdb.ZRange(ctx, schema.PayoutsKey(appid), 0, -1).Result()
	if err != nil {
		return nil, err
	}
	out := make([]payout.Payout, 0, len(ids))
	for _, id := range ids {
		p, err := s.Get(ctx, appid, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
