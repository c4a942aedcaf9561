package projector

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// flush inserts the batch, retrying with backoff until ClickHouse confirms
// (reading stops meanwhile, so memory stays one batch), then acknowledges.
// An entry is acknowledged only after its row is confirmed.
func (p *Projector) flush(ctx context.Context) error {
	if len(p.batch.events) > 0 {
		if err := p.insert(ctx); err != nil {
			return err
		}
	}
	if err := p.ack(ctx); err != nil {
		// Rows are in; the entries stay pending and are inserted again later,
		// which the table's versioning makes harmless.
		return err
	}
	p.m.projected.Add(float64(len(p.batch.events)))
	p.batch.reset()
	return nil
}

// ack acknowledges the batch, retrying with backoff while ctx lasts: a
// failed XACK is Redis unreachable or still loading its AOF after a
// restart, and a projector that gave up on it would stop projecting for
// good while its process stayed up and ready (make chaos found that).
func (p *Projector) ack(ctx context.Context) error {
	backoff := p.cfg.BackoffMin
	for {
		err := p.c.Ack(ctx, p.batch.acks)
		if err == nil {
			return nil
		}
		p.log.Warn("acknowledge failed; retrying", "backoff", backoff, "err", err)
		if ctx.Err() != nil {
			return fmt.Errorf("acknowledge batch: %w", err)
		}
		p.sleep(ctx, backoff)
		backoff = min(2*backoff, p.cfg.BackoffMax)
	}
}

func (p *Projector) insert(ctx context.Context) error {
	backoff := p.cfg.BackoffMin
	for {
		start := time.Now()
		err := p.sink.Insert(ctx, p.batch.events)
		if err == nil {
			now := time.Now()
			p.m.insertTime.Observe(now.Sub(start).Seconds())
			p.m.batchSize.Observe(float64(len(p.batch.events)))
			for i := range p.batch.events {
				p.m.lag.Observe(now.Sub(p.batch.events[i].At).Seconds())
			}
			return nil
		}
		p.m.insertErrors.Inc()
		p.log.Warn("insert failed; retrying", "rows", len(p.batch.events), "backoff", backoff, "err", err)
		if ctx.Err() != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		p.sleep(ctx, backoff)
		backoff = min(2*backoff, p.cfg.BackoffMax)
	}
}

// claim takes over entries another consumer read and left unacknowledged
// for ClaimIdle: a crashed or stuck projector's work.
func (p *Projector) claim(ctx context.Context) {
	if p.batch.size >= p.cfg.BatchSize {
		return
	}
	p.c.Claim(ctx, min(p.cfg.BatchSize, maxRead), func(st redis.XStream) bool {
		for _, msg := range st.Messages {
			p.take(ctx, st.Stream, msg)
		}
		p.m.claimed.Add(float64(len(st.Messages)))
		return p.batch.size < p.cfg.BatchSize
	})
}
