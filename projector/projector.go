package projector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Sink is where projected events go: the read model the query side lists.
type Sink interface {
	Insert(ctx context.Context, events []schema.Event) error
}

// DeadLetterKey receives the entries the projector cannot decode (named in
// schema, where every key is).
const DeadLetterKey = schema.ProjectorDeadLetterKey

// Projector moves events from every shard stream into the sink.
type Projector struct {
	cfg     Config
	rdb     redis.UniversalClient
	sink    Sink
	log     *slog.Logger
	m       *metrics
	streams []string
	c       *platform.Consumer

	batch batch
}

// batch is what was read and not yet acknowledged.
type batch struct {
	events  []schema.Event
	acks    map[string][]string // stream -> entry ids
	size    int
	firstAt time.Time
}

func (b *batch) add(stream, id string, ev *schema.Event) {
	if b.size == 0 {
		b.firstAt = time.Now()
	}
	if ev != nil {
		b.events = append(b.events, *ev)
	}
	b.acks[stream] = append(b.acks[stream], id)
	b.size++
}

func (b *batch) reset() {
	b.events = b.events[:0]
	clear(b.acks)
	b.size = 0
}

// New wires a projector; Run starts it.
func New(cfg Config, rdb redis.UniversalClient, sink Sink, reg prometheus.Registerer, log *slog.Logger) (*Projector, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("register projector metrics: %w", err)
	}
	p := &Projector{cfg: cfg, rdb: rdb, sink: sink, log: log.With("role", "projector", "consumer", cfg.Consumer), m: m,
		batch: batch{acks: map[string][]string{}}}
	for _, s := range schema.AllShards() {
		p.streams = append(p.streams, schema.EventsKey(s))
	}
	p.c, err = platform.NewConsumer(rdb, platform.ConsumerConfig{
		Group: Group, Name: cfg.Consumer, Streams: p.streams, Count: min(cfg.BatchSize, maxRead)/len(p.streams) + 1,
		Block: cfg.FlushInterval, ClaimIdle: cfg.ClaimIdle,
	}, p.log)
	if err != nil {
		return nil, fmt.Errorf("projector consumer: %w", err)
	}
	return p, nil
}

// Run projects until ctx ends, then inserts and acknowledges what it holds.
func (p *Projector) Run(ctx context.Context) error {
	if err := p.c.EnsureGroups(ctx); err != nil {
		return err
	}
	go p.trimLoop(ctx)
	if err := p.readOwnPending(ctx); err != nil {
		return p.stop(err)
	}
	rctx, stopReaders := context.WithCancel(ctx)
	p.c.Start(rctx)
	// What the readers read ahead joins the last batch, so a stopped
	// projector leaves nothing pending for another to wait ClaimIdle for.
	end := func(cause error) error {
		stopReaders()
		p.takeAll(context.Background(), p.c.Stop())
		return p.stop(cause)
	}
	lastClaim := time.Time{}
	for ctx.Err() == nil {
		if time.Since(lastClaim) >= p.cfg.ClaimEvery {
			p.claim(ctx)
			lastClaim = time.Now()
		}
		p.readNew(ctx)
		if p.batch.size >= p.cfg.BatchSize || (p.batch.size > 0 && time.Since(p.batch.firstAt) >= p.cfg.FlushInterval) {
			if err := p.flush(ctx); err != nil {
				return end(err)
			}
		}
	}
	return end(nil)
}

// stop flushes what is held with a fresh bound: on SIGTERM the batch in hand
// is inserted and acknowledged rather than left for another consumer.
func (p *Projector) stop(cause error) error {
	if p.batch.size > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.flush(ctx); err != nil {
			p.log.Warn("final flush failed; the entries stay pending for another consumer", "err", err)
		}
	}
	if cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

// readOwnPending takes back what this consumer name read and did not
// acknowledge before a restart.
func (p *Projector) readOwnPending(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := p.c.Pending(ctx, min(p.cfg.BatchSize, maxRead)/len(p.streams)+1)
		if err != nil {
			return err
		}
		if len(res) == 0 {
			return nil
		}
		p.takeAll(ctx, res)
		if err := p.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// readNew takes what the consumer's readers got, waiting at most until the
// batch in hand is due to be flushed.
func (p *Projector) readNew(ctx context.Context) {
	wait := p.cfg.FlushInterval
	if p.batch.size > 0 {
		wait = max(time.Millisecond, p.cfg.FlushInterval-time.Since(p.batch.firstAt))
	}
	p.takeAll(ctx, p.c.Next(ctx, wait, p.cfg.BatchSize-p.batch.size))
}

// maxRead bounds the entries one read asks for. Redis answers a read in one
// piece, blocking every other client meanwhile (about 3 µs an entry), so a
// large batch is filled by several reads: 5,000 entries hold Redis for
// about 15 ms, a whole 20,000-row batch would hold it for 60.
const maxRead = 5000

func (p *Projector) takeAll(ctx context.Context, res []redis.XStream) {
	for _, st := range res {
		for _, msg := range st.Messages {
			p.take(ctx, st.Stream, msg)
		}
	}
}

// take decodes an entry into the batch; one it cannot decode goes to the
// dead-letter stream and is acknowledged with the batch.
func (p *Projector) take(ctx context.Context, stream string, msg redis.XMessage) {
	if len(msg.Values) == 0 { // trimmed or deleted while pending
		p.batch.add(stream, msg.ID, nil)
		return
	}
	ev, err := schema.DecodeEvent(msg.ID, msg.Values)
	if err != nil {
		if derr := p.deadLetter(ctx, stream, msg, err); derr != nil {
			p.log.Error("dead-letter an undecodable event; it stays pending", "stream", stream, "id", msg.ID, "err", derr)
			return
		}
		p.m.deadLetters.Inc()
		p.log.Warn("undecodable event moved to the dead-letter stream", "stream", stream, "id", msg.ID, "err", err)
		p.batch.add(stream, msg.ID, nil)
		return
	}
	p.batch.add(stream, msg.ID, &ev)
}

func (p *Projector) deadLetter(ctx context.Context, stream string, msg redis.XMessage, cause error) error {
	values := map[string]any{"stream": stream, "id": msg.ID, "error": cause.Error()}
	for k, v := range msg.Values {
		values["f:"+k] = v
	}
	return p.rdb.XAdd(ctx, &redis.XAddArgs{Stream: DeadLetterKey, Values: values}).Err()
}

func (p *Projector) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
