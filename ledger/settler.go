package ledger

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Settler moves payments' money from pending to available (and reserves
// back to available) when it falls due. Every step is idempotent: the move
// is posted under its own key before its member leaves the due index, so
// two settlers, or one that dies between the two, settle each payment once.
type Settler struct {
	cfg Config
	rdb redis.UniversalClient
	j   *journal.Journal
	log *slog.Logger
	m   *settlerMetrics

	// crashAfterPost, in tests, ends a pass between posting a move and
	// removing it from the index when it answers true: a kill -9 there.
	crashAfterPost func() bool
}

// NewSettler wires a Settler on rdb; Run starts it, Pass runs it once.
func NewSettler(cfg Config, rdb redis.UniversalClient, j *journal.Journal, reg prometheus.Registerer, log *slog.Logger) (*Settler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || j == nil || reg == nil || log == nil {
		return nil, errors.New("ledger: redis, journal, registerer and logger are required")
	}
	m, err := newSettlerMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("register settler metrics: %w", err)
	}
	return &Settler{cfg: cfg, rdb: rdb, j: j, log: log.With("role", "ledger"), m: m}, nil
}

// Run passes every SettleEvery until ctx ends.
func (s *Settler) Run(ctx context.Context) {
	platform.Every(ctx, s.cfg.SettleEvery, func(ctx context.Context) {
		if _, err := s.Pass(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("settlement pass failed; the next pass goes on", "err", err)
		}
	})
}

// PassReport is what one pass did.
type PassReport struct {
	Settled int // moves done (posted now, clamped, replayed or emptied)
	Due     int // moves still due after the pass
}

// Pass settles what is due now on every shard, SettleLimit moves a shard.
func (s *Settler) Pass(ctx context.Context) (PassReport, error) {
	var r PassReport
	var errs []error
	now := s.cfg.Now()
	for _, sh := range schema.AllShards() {
		n, err := s.shard(ctx, sh, now)
		r.Settled += n
		errs = append(errs, err)
		left, err := s.rdb.ZCount(ctx, schema.SettleDueKey(sh), "-inf", strconv.FormatInt(now.UnixMilli(), 10)).Result()
		errs = append(errs, err)
		r.Due += int(left)
	}
	s.m.due.Set(float64(r.Due))
	return r, errors.Join(errs...)
}

func (s *Settler) shard(ctx context.Context, sh schema.Shard, now time.Time) (int, error) {
	key := schema.SettleDueKey(sh)
	due, err := s.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: key, ByScore: true, Start: "-inf",
		Stop: strconv.FormatInt(now.UnixMilli(), 10), Count: int64(s.cfg.SettleLimit)}).Result()
	if err != nil {
		return 0, fmt.Errorf("read due moves of shard %s: %w", sh.Tag(), err)
	}
	n := 0
	var errs []error
	for _, z := range due {
		member, _ := z.Member.(string)
		done, err := s.settle(ctx, member, time.UnixMilli(int64(z.Score)).UTC())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !done {
			continue
		}
		if s.crashAfterPost != nil && s.crashAfterPost() {
			return n, nil
		}
		if err := s.rdb.ZRem(ctx, key, member).Err(); err != nil {
			errs = append(errs, fmt.Errorf("remove due move %s: %w", member, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// settle posts one due move; done says its member may leave the index. A
// move refused because a refund took the pending money first is clamped to
// what the bucket holds now (nothing, when that is nothing); a clamp that
// races another refund is refused again and waits for the next pass.
func (s *Settler) settle(ctx context.Context, member string, at time.Time) (bool, error) {
	d, err := journal.ParseDueMove(member)
	if err != nil {
		s.m.settled.WithLabelValues("unknown", resultInvalid).Inc()
		s.log.Error("due move cannot be read; removed", "member", member, "err", err)
		return true, nil
	}
	r, err := s.j.Post(ctx, d.Tx(at))
	if err != nil {
		return false, err
	}
	if r.Outcome != journal.Refused {
		s.m.settled.WithLabelValues(d.Kind, r.Outcome.String()).Inc()
		return true, nil
	}
	clamped, ok, err := s.clamp(ctx, d)
	if err != nil || !ok {
		if err == nil {
			s.m.settled.WithLabelValues(d.Kind, "empty").Inc()
		}
		return err == nil, err
	}
	r, err = s.j.Post(ctx, clamped.Tx(at))
	if err != nil || r.Outcome == journal.Refused {
		return false, err
	}
	s.m.settled.WithLabelValues(d.Kind, "clamped").Inc()
	s.log.Info("settlement smaller than the payment: a refund took part of it first", "merchant", d.AppID,
		"order", d.Ref, "due", int64(d.Amount), "settled", int64(clamped.Amount))
	return true, nil
}

// clamp is d cut to what its source bucket holds now, its reserve in
// proportion; ok is false when the bucket holds nothing to move.
func (s *Settler) clamp(ctx context.Context, d journal.DueMove) (journal.DueMove, bool, error) {
	b, err := s.j.Balance(ctx, d.AppID, d.Currency)
	if err != nil {
		return d, false, err
	}
	have := b.Pending
	if d.Kind == journal.KindReserveRelease {
		have = b.Reserve
	}
	if have <= 0 {
		return d, false, nil
	}
	if have < d.Amount {
		n := new(big.Int).Mul(big.NewInt(int64(d.Reserve)), big.NewInt(int64(have)))
		d.Reserve = schema.Amount(n.Quo(n, big.NewInt(int64(d.Amount))).Int64())
		d.Amount = have
	}
	return d, true, nil
}
