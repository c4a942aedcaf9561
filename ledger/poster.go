package ledger

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Poster posts what the event streams say happened to the journal, once.
type Poster struct {
	cfg Config
	rdb redis.UniversalClient
	j   *journal.Journal
	acc Accounts
	log *slog.Logger
	m   *posterMetrics
	c   *platform.Consumer
	// since is when the journal took over from the balances of before it
	// (schema.JournalSinceKey): balance transfers and balance refunds that
	// ended earlier moved those old balances, which the opening entries
	// carry, so posting them again would count them twice.
	since time.Time
	// caps and channels: an order's cap reservation is released when it
	// ends unpaid; a paid one counts in its channel's day (channels.go).
	caps     *channel.Caps
	channels *channel.Directory

	// crashAfterPost, in tests, stops handle between posting and
	// acknowledging when it answers true: what a kill -9 there leaves.
	crashAfterPost func() bool
}

// NewPoster wires a Poster on rdb; Run starts it.
func NewPoster(cfg Config, rdb redis.UniversalClient, j *journal.Journal, acc Accounts, reg prometheus.Registerer, log *slog.Logger) (*Poster, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || j == nil || acc == nil || reg == nil || log == nil {
		return nil, errors.New("ledger: redis, journal, accounts, registerer and logger are required")
	}
	m, err := newPosterMetrics(reg, rdb)
	if err != nil {
		return nil, fmt.Errorf("register ledger metrics: %w", err)
	}
	p := &Poster{cfg: cfg, rdb: rdb, j: j, acc: acc, log: log.With("role", "ledger", "consumer", cfg.Consumer), m: m,
		caps: channel.NewCaps(rdb), channels: channel.NewDirectory(nil, 0, log)}
	p.c, err = platform.NewConsumer(rdb, platform.ConsumerConfig{
		Group: schema.GroupLedger, Name: cfg.Consumer, Count: cfg.Batch/schema.NumShards + 1,
		Block: cfg.Block, ClaimIdle: cfg.ClaimIdle,
	}, p.log)
	if err != nil {
		return nil, fmt.Errorf("ledger consumer: %w", err)
	}
	return p, nil
}

// Run posts until ctx ends, then posts and acknowledges what its readers
// hold, so a stopped process leaves nothing for another to wait for.
func (p *Poster) Run(ctx context.Context) error {
	if err := p.c.EnsureGroups(ctx); err != nil {
		return err
	}
	since, err := JournalSince(ctx, p.rdb, p.cfg.Now())
	if err != nil {
		return err
	}
	p.since = since
	p.drainOwn(ctx)
	go p.claimLoop(ctx)
	rctx, stop := context.WithCancel(ctx)
	p.c.Start(rctx)
	for ctx.Err() == nil {
		if read := p.c.Next(ctx, p.cfg.Block, p.cfg.Batch); len(read) > 0 {
			p.handle(ctx, read)
		}
	}
	stop()
	if left := p.c.Stop(); len(left) > 0 {
		bg, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.handle(bg, left)
	}
	return nil
}

// drainOwn posts what this consumer name read before a restart and never
// acknowledged; it stops when a round acknowledges nothing (Redis is
// failing: claimLoop and the next restart try again).
func (p *Poster) drainOwn(ctx context.Context) {
	for ctx.Err() == nil {
		res, err := p.c.Pending(ctx, p.cfg.Batch/schema.NumShards+1)
		if err != nil || len(res) == 0 || p.handle(ctx, res) == 0 {
			return
		}
	}
}

// claimLoop takes over entries a dead ledger process read and never
// acknowledged, once idle ClaimIdle.
func (p *Poster) claimLoop(ctx context.Context) {
	platform.Every(ctx, p.cfg.ClaimEvery, func(ctx context.Context) {
		p.c.Claim(ctx, p.cfg.Batch, func(st redis.XStream) bool {
			p.m.claimed.Add(float64(len(st.Messages)))
			p.log.Info("took over unacknowledged events", "stream", st.Stream, "count", len(st.Messages))
			p.handle(ctx, []redis.XStream{st})
			return ctx.Err() == nil
		})
	})
}

// pendingTx is a transaction and the entry that asked for it.
type pendingTx struct{ stream, id string }

// handle posts what the entries ask for in one pipeline, then acknowledges
// every entry whose posting is settled: posted now or before, refused (see
// docs/ledger.md: an operator's matter, never a reason to stop the stream),
// missing, or never postable. An entry whose posting met a Redis error stays
// pending and comes back. It returns how many entries it acknowledged.
func (p *Poster) handle(ctx context.Context, read []redis.XStream) int {
	acks := map[string][]string{}
	ack := func(stream, id string) { acks[stream] = append(acks[stream], id) }
	var txs []journal.Tx
	var from []pendingTx
	var all []prepared
	for _, st := range read {
		for _, msg := range st.Messages {
			all = append(all, p.prepare(ctx, st.Stream, msg))
		}
	}
	p.applyChannels(ctx, all)
	for _, pr := range all {
		switch {
		case pr.post:
			txs, from = append(txs, pr.tx), append(from, pendingTx{pr.stream, pr.id})
		case pr.done:
			ack(pr.stream, pr.id)
		}
	}
	bg := context.WithoutCancel(ctx)
	if len(txs) > 0 {
		results, errs := p.j.PostAll(bg, txs)
		for i := range txs {
			if p.settled(txs[i], results[i], errs[i]) {
				ack(from[i].stream, from[i].id)
			}
		}
	}
	if p.crashAfterPost != nil && p.crashAfterPost() {
		return 0
	}
	n := 0
	for _, ids := range acks {
		n += len(ids)
	}
	if err := p.c.Ack(bg, acks); err != nil {
		p.log.Warn("acknowledge events failed; they come back and replay", "err", err)
		return 0
	}
	return n
}

// prepared is one entry read: the transaction to post (post), or done when
// the entry needs nothing more than its acknowledgement; neither leaves it
// pending (a merchant's terms could not be read). ev is the event read, for
// its channel's part (applyChannels).
type prepared struct {
	stream, id string
	tx         journal.Tx
	post, done bool
	ev         *schema.Event
}

// prepare reads one entry.
func (p *Poster) prepare(ctx context.Context, stream string, msg redis.XMessage) prepared {
	pr := prepared{stream: stream, id: msg.ID}
	if len(msg.Values) == 0 { // trimmed or deleted while pending
		pr.done = true
		return pr
	}
	ev, err := schema.DecodeEvent(msg.ID, msg.Values)
	if err != nil {
		p.m.postings.WithLabelValues(kindEvent, resultInvalid).Inc()
		p.log.Error("event cannot be read; nothing posted", "stream", stream, "id", msg.ID, "err", err)
		pr.done = true
		return pr
	}
	pr.ev = &ev
	tx, ok, err := txOf(ctx, &ev, p.acc, p.since)
	switch {
	case errors.Is(err, errInvalid):
		p.m.postings.WithLabelValues(kindEvent, resultInvalid).Inc()
		p.log.Error("event cannot be posted; nothing posted", "stream", stream, "id", msg.ID, "order", ev.Order.ID, "err", err)
		pr.done = true
	case err != nil:
		p.m.postings.WithLabelValues(kindEvent, resultError).Inc()
		p.log.Warn("event left pending; it comes back", "stream", stream, "id", msg.ID, "err", err)
	default:
		pr.tx, pr.post, pr.done = tx, ok, !ok
	}
	return pr
}

// settled counts one posting's result and says whether its entry may be
// acknowledged.
func (p *Poster) settled(tx journal.Tx, r journal.Result, err error) bool {
	switch {
	case errors.Is(err, journal.ErrInvalid):
		p.m.postings.WithLabelValues(tx.Kind, resultInvalid).Inc()
		p.log.Error("transaction cannot be posted; nothing posted", "tx", tx.Key, "err", err)
		return true
	case err != nil:
		p.m.postings.WithLabelValues(tx.Kind, resultError).Inc()
		p.log.Warn("posting failed; the event stays pending and comes back", "tx", tx.Key, "err", err)
		return false
	}
	p.m.postings.WithLabelValues(tx.Kind, r.Outcome.String()).Inc()
	if r.Outcome == journal.Refused {
		p.log.Warn("posting refused: the merchant's balance does not cover it; see docs/ledger.md",
			"tx", tx.Key, "merchant", tx.AppID, "account", r.Short, "balance", int64(r.Balance))
	}
	return true
}
