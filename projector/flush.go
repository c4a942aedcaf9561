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
		_, err := p.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for stream, ids := range p.batch.acks {
				pipe.XAck(ctx, stream, Group, ids...)
			}
			return nil
		})
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
	for _, stream := range p.streams {
		start := "0-0"
		for p.batch.size < p.cfg.BatchSize {
			msgs, next, err := p.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: stream, Group: Group, Consumer: p.cfg.Consumer, MinIdle: p.cfg.ClaimIdle,
				Start: start, Count: int64(min(p.cfg.BatchSize-p.batch.size, maxRead)),
			}).Result()
			if err != nil {
				if ctx.Err() == nil {
					p.log.Warn("claim idle entries", "stream", stream, "err", err)
				}
				return
			}
			for _, msg := range msgs {
				p.take(ctx, stream, msg)
			}
			p.m.claimed.Add(float64(len(msgs)))
			if next == "0-0" || len(msgs) == 0 {
				break
			}
			start = next
		}
	}
}
