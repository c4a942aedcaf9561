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
func EvalPipelined(ctx context.Context, rdb *redis.Client, sc *redis.Script, calls []ScriptCall) []*redis.Cmd {
	out := make([]*redis.Cmd, len(calls))
	todo := make([]int, len(calls))
	for i := range todo {
		todo[i] = i
	}
	for round := 0; round < 2 && len(todo) > 0; round++ {
		_, _ = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range todo {
				out[i] = sc.EvalSha(ctx, p, calls[i].Keys, calls[i].Args...)
			}
			return nil
		})
		var again []int
		for _, i := range todo {
			if redis.HasErrorPrefix(out[i].Err(), "NOSCRIPT") {
				again = append(again, i)
			}
		}
		if len(again) == 0 || round == 1 {
			break
		}
		if err := sc.Load(ctx, rdb).Err(); err != nil {
			for _, i := range again {
				out[i].SetErr(fmt.Errorf("load script: %w", err))
			}
			break
		}
		todo = again
	}
	return out
}

// ScriptBatcher runs a script for many concurrent callers in shared
// pipelines. Under load, Redis then reads, runs and fsyncs a whole batch per
// turn of its event loop, and each side makes one write and one read system
// call per batch instead of per call; a lone caller is sent at once.
//
// It needs no goroutine of its own: the first caller to find a lane free
// sends the batch its call heads and, when that batch is answered, hands the
// next waiting batch to the owner of that batch's first call. So every
// caller sends at most one pipeline, the one holding its own call, and
// nobody's answer waits on anyone else's beyond that one round trip.
type ScriptBatcher struct {
	rdb     *redis.Client
	script  *redis.Script
	max     int
	lanes   int
	timeout time.Duration

	mu    sync.Mutex
	queue []*batchCall
	busy  int
}

type batchCall struct {
	ScriptCall
	cmd  *redis.Cmd
	done chan struct{}
	lead chan []*batchCall // the batch this caller is to send
}

// NewScriptBatcher batches runs of script: at most size calls per pipeline
// and lanes pipelines in flight, each bounded by timeout.
func NewScriptBatcher(rdb *redis.Client, script *redis.Script, size, lanes int, timeout time.Duration) *ScriptBatcher {
	return &ScriptBatcher{rdb: rdb, script: script, max: max(size, 1), lanes: max(lanes, 1), timeout: timeout}
}

// Run runs the script with keys and args in the next pipeline. It waits
// for the answer even when ctx ends first (the pipeline is bounded by the
// batcher's timeout): a caller that left could strand the calls behind it.
func (b *ScriptBatcher) Run(ctx context.Context, keys []string, args ...any) *redis.Cmd {
	c := &batchCall{ScriptCall: ScriptCall{Keys: keys, Args: args}, done: make(chan struct{}), lead: make(chan []*batchCall, 1)}
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
	return c.cmd
}

// take removes the next batch from the queue; b.mu is held.
func (b *ScriptBatcher) take() []*batchCall {
	n := min(len(b.queue), b.max)
	batch := make([]*batchCall, n)
	copy(batch, b.queue)
	rest := copy(b.queue, b.queue[n:])
	clear(b.queue[rest:])
	b.queue = b.queue[:rest]
	return batch
}

// send runs one batch, answers its callers and passes the lane on.
func (b *ScriptBatcher) send(ctx context.Context, batch []*batchCall) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.timeout)
	calls := make([]ScriptCall, len(batch))
	for i, c := range batch {
		calls[i] = c.ScriptCall
	}
	cmds := EvalPipelined(pctx, b.rdb, b.script, calls)
	cancel()
	for i, c := range batch {
		c.cmd = cmds[i]
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
