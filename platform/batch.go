package platform

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ScriptCall is one run of a script in a pipeline.
type ScriptCall struct {
	Keys []string
	Args []any
}

// EvalPipelined runs the script once per call in one pipeline: a batch of
// changes costs one round trip and, with appendfsync always, one fsync,
// instead of one each. EVALSHA in a pipeline cannot fall back to EVAL by
// itself: after a NOSCRIPT (Redis restarted or flushed its scripts) the
// script is loaded and the calls it refused run again. Result i belongs to
// calls[i].
func EvalPipelined(ctx context.Context, rdb redis.UniversalClient, sc *redis.Script, calls []ScriptCall) []*redis.Cmd {
	out := make([]*redis.Cmd, len(calls))
	b := make([]*batchCall, len(calls))
	for i, c := range calls {
		b[i] = &batchCall{script: sc, add: func(p redis.Pipeliner) redis.Cmder {
			out[i] = sc.EvalSha(ctx, p, c.Keys, c.Args...)
			return out[i]
		}}
	}
	execBatch(ctx, rdb, b)
	return out
}

// Batcher sends the Redis calls of many concurrent callers in shared
// pipelines. Under load, Redis then reads, runs and (for writes with
// appendfsync always) fsyncs a whole batch per turn of its event loop, and
// each side makes one write and one read system call per batch instead of
// per call; a lone caller is sent at once.
//
// It needs no goroutine of its own: the first caller to find a lane free
// sends the batch its call heads and, when that batch is answered, hands the
// next waiting batch to the owner of that batch's first call. So every
// caller sends at most one pipeline, the one holding its own call, and
// nobody's answer waits on anyone else's beyond that one round trip.
type Batcher struct {
	rdb     redis.UniversalClient
	max     int
	lanes   int
	timeout time.Duration

	mu    sync.Mutex
	queue []*batchCall
	busy  int
}

type batchCall struct {
	add    func(redis.Pipeliner) redis.Cmder // queues the call, keeps its result
	script *redis.Script                     // loaded again after a NOSCRIPT
	cmd    redis.Cmder
	done   chan struct{}
	lead   chan []*batchCall // the batch this caller is to send
}

// BatcherConfig tunes a Batcher; a field at or below zero takes its default.
type BatcherConfig struct {
	// Lanes is how many pipelines may be in flight at once (default 4).
	// More lanes do not raise throughput once Redis is busy, but bound the
	// wait of a call that finds them all taken.
	Lanes int
	// Size bounds the calls in one pipeline (default 128).
	Size int
	// Timeout bounds one pipeline's round trip (default 5 s).
	Timeout time.Duration
}

// BatcherDefaults is every field's default.
func BatcherDefaults() BatcherConfig {
	return BatcherConfig{Lanes: 4, Size: 128, Timeout: 5 * time.Second}
}

// withDefaults fills every field at or below zero from BatcherDefaults, a
// negative one too: NewBatcher returns no error (its callers build stores
// that cannot fail), so it has nothing to refuse with and takes the default.
func (c BatcherConfig) withDefaults() BatcherConfig {
	d := BatcherDefaults()
	if c.Lanes <= 0 {
		c.Lanes = d.Lanes
	}
	if c.Size <= 0 {
		c.Size = d.Size
	}
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	return c
}

// Validate refuses a field below 1 (a pipeline that takes no call, no lane
// to send it on, no time to wait); it changes nothing.
func (c BatcherConfig) Validate() error {
	if c.Lanes < 1 || c.Size < 1 || c.Timeout <= 0 {
		return fmt.Errorf("batcher: lanes %d, size %d and timeout %s must be positive", c.Lanes, c.Size, c.Timeout)
	}
	return nil
}

// NewBatcher batches calls on rdb; after withDefaults cfg always passes
// Validate, so there is no error to return.
func NewBatcher(rdb redis.UniversalClient, cfg BatcherConfig) *Batcher {
	cfg = cfg.withDefaults()
	return &Batcher{rdb: rdb, max: cfg.Size, lanes: cfg.Lanes, timeout: cfg.Timeout}
}

// Batched queues one call in b's next pipeline and returns its result; add
// puts the command on the pipeline. It waits for the answer even when ctx
// ends first (the pipeline is bounded by the batcher's timeout): a caller
// that left could strand the calls behind it.
func Batched[C redis.Cmder](ctx context.Context, b *Batcher, add func(context.Context, redis.Pipeliner) C) C {
	var out C
	b.run(ctx, &batchCall{add: func(p redis.Pipeliner) redis.Cmder { out = add(ctx, p); return out }})
	return out
}

// Script runs sc with keys and args in b's next pipeline; after a NOSCRIPT
// the script is loaded and the call sent once more.
func (b *Batcher) Script(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	var out *redis.Cmd
	b.run(ctx, &batchCall{script: sc, add: func(p redis.Pipeliner) redis.Cmder {
		out = sc.EvalSha(ctx, p, keys, args...)
		return out
	}})
	return out
}

func (b *Batcher) run(ctx context.Context, c *batchCall) {
	c.done, c.lead = make(chan struct{}), make(chan []*batchCall, 1)
	b.mu.Lock()
	b.queue = append(b.queue, c)
	if b.busy < b.lanes {
		b.busy++
		batch := b.take()
		b.mu.Unlock()
		b.send(ctx, batch)
	} else {
		b.mu.Unlock()
	}
	select {
	case <-c.done:
	case batch := <-c.lead:
		b.send(ctx, batch)
	}
}

// take removes the next batch from the queue; b.mu is held.
func (b *Batcher) take() []*batchCall {
	n := min(len(b.queue), b.max)
	batch := make([]*batchCall, n)
	copy(batch, b.queue)
	rest := copy(b.queue, b.queue[n:])
	clear(b.queue[rest:])
	b.queue = b.queue[:rest]
	return batch
}

// send runs one batch, answers its callers and passes the lane on.
func (b *Batcher) send(ctx context.Context, batch []*batchCall) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.timeout)
	execBatch(pctx, b.rdb, batch)
	cancel()
	for _, c := range batch {
		close(c.done)
	}
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.busy--
		b.mu.Unlock()
		return
	}
	next := b.take()
	b.mu.Unlock()
	next[0].lead <- next
}

// execBatch sends the calls in one pipeline, then once more those of a
// script Redis did not hold, after loading it.
//
// On Redis Cluster (go-redis v9.23) the pipeline is split by node and sent
// to every node at once; a MOVED or ASK answer (a slot moved, a replica
// promoted in a failover) is sent again to the node named, up to the
// client's MaxRedirects, after which the call keeps the MOVED error: a call
// is answered or fails, never dropped. Script.Load on a cluster client runs
// SCRIPT LOAD on every master and replica, so one load answers the
// NOSCRIPTs of all nodes, a promoted replica's too
// (TestScriptPipelineRecoversNoScriptOnEveryNode).
func execBatch(ctx context.Context, rdb redis.UniversalClient, calls []*batchCall) {
	todo := calls
	for round := 0; round < 2 && len(todo) > 0; round++ {
		_, _ = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, c := range todo {
				c.cmd = c.add(p)
			}
			return nil
		})
		var again []*batchCall
		var loaded map[*redis.Script]error // scripts loaded this round, rarely any
		for _, c := range todo {
			if c.script == nil || !redis.HasErrorPrefix(c.cmd.Err(), "NOSCRIPT") || round == 1 {
				continue
			}
			err, seen := loaded[c.script]
			if !seen {
				err = c.script.Load(ctx, rdb).Err()
				if loaded == nil {
					loaded = map[*redis.Script]error{}
				}
				loaded[c.script] = err
			}
			if err != nil {
				c.cmd.SetErr(fmt.Errorf("load script: %w", err))
				continue
			}
			again = append(again, c)
		}
		todo = again
	}
}
