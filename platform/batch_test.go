package platform

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

// echoLua counts its runs and answers its argument, or fails when asked to.
const echoLua = `redis.call('INCR', KEYS[1])
if ARGV[1] == 'fail' then return redis.error_reply('asked to fail') end
return ARGV[1]`

// pipelineCounter counts the pipelines a client sends and their commands.
type pipelineCounter struct {
	pipelines, cmds atomic.Int64
}

func (p *pipelineCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (p *pipelineCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return next
}
func (p *pipelineCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		p.pipelines.Add(1)
		p.cmds.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

func batchRedis(t *testing.T) (*miniredis.Miniredis, *redis.Client, *pipelineCounter) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	pc := &pipelineCounter{}
	rdb.AddHook(pc)
	return mr, rdb, pc
}

func TestBatcher(t *testing.T) {
	cases := []struct {
		name    string
		callers int
		lanes   int
		size    int
	}{
		{"lone caller", 1, 4, 128},
		{"many callers, one lane", 300, 1, 128},
		{"many callers, small batches", 300, 4, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, rdb, pc := batchRedis(t)
			b, sc := NewBatcher(rdb, BatcherConfig{Size: c.size, Lanes: c.lanes}), redis.NewScript(echoLua)
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, c.callers)
			for i := range c.callers {
				wg.Go(func() {
					<-start
					want := strconv.Itoa(i)
					got, err := b.Script(context.Background(), sc, []string{"runs"}, want).Text()
					if err != nil || got != want {
						errs <- fmt.Errorf("caller %d got %q, %v", i, got, err)
					}
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if n, _ := rdb.Get(context.Background(), "runs").Int(); n != c.callers {
				t.Errorf("the script ran %d times for %d callers", n, c.callers)
			}
			// A first EVALSHA of a script Redis has not seen is refused and
			// sent again: commands may exceed callers by the first pipeline
			// of each lane.
			if p := pc.pipelines.Load(); c.callers > 1 && p >= int64(c.callers) {
				t.Errorf("%d callers sent %d pipelines: nothing was batched", c.callers, p)
			}
			if m := pc.cmds.Load() - int64(c.callers); m < 0 || m > int64(c.size*c.lanes) {
				t.Errorf("%d commands for %d callers", pc.cmds.Load(), c.callers)
			}
		})
	}
}

// TestBatcherErrorsStayWithTheirCall: one call's script error is its
// own; the calls batched with it succeed.
func TestBatcherErrorsStayWithTheirCall(t *testing.T) {
	_, rdb, _ := batchRedis(t)
	b, sc := NewBatcher(rdb, BatcherConfig{Size: 128, Lanes: 1}), redis.NewScript(echoLua)
	var wg sync.WaitGroup
	results := make([]error, 50)
	for i := range results {
		wg.Go(func() {
			arg := "ok"
			if i == 7 {
				arg = "fail"
			}
			results[i] = b.Script(context.Background(), sc, []string{"runs"}, arg).Err()
		})
	}
	wg.Wait()
	for i, err := range results {
		if (i == 7) != (err != nil) {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// TestBatcherAfterScriptFlush: scripts Redis forgot are loaded again.
func TestBatcherAfterScriptFlush(t *testing.T) {
	mr, rdb, _ := batchRedis(t)
	b, sc := NewBatcher(rdb, BatcherConfig{Size: 128, Lanes: 2}), redis.NewScript(echoLua)
	ctx := context.Background()
	for round := range 3 {
		if got, err := b.Script(ctx, sc, []string{"runs"}, "x").Text(); err != nil || got != "x" {
			t.Fatalf("round %d: %q, %v", round, got, err)
		}
		mr.FlushAll()
		if err := rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatcherCallerContextEnded: a caller whose context has ended
// still gets its answer, so that it never strands the calls queued behind.
func TestBatcherCallerContextEnded(t *testing.T) {
	_, rdb, _ := batchRedis(t)
	b, sc := NewBatcher(rdb, BatcherConfig{Size: 128, Lanes: 1}), redis.NewScript(echoLua)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := b.Script(ctx, sc, []string{"runs"}, "late").Text(); err != nil || got != "late" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestBatcherRedisDown: every caller gets an error, none hangs, and
// the batcher works again once Redis is back.
func TestBatcherRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = rdb.Close() })
	b, sc := NewBatcher(rdb, BatcherConfig{Lanes: 2, Timeout: 2 * time.Second}), redis.NewScript(echoLua)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 20 {
		wg.Go(func() {
			if b.Script(context.Background(), sc, []string{"runs"}, "x").Err() != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() != 20 {
		t.Fatalf("%d of 20 calls failed with Redis down", failed.Load())
	}
	mr := miniredis.NewMiniRedis()
	if err := mr.StartAddr(addr); err != nil {
		testenv.Skipf(t, "cannot listen on %s again: %v", addr, err)
	}
	t.Cleanup(mr.Close)
	if got, err := b.Script(context.Background(), sc, []string{"runs"}, "back").Text(); err != nil || got != "back" {
		t.Fatalf("after Redis came back: %q, %v", got, err)
	}
}

// TestBatchedCommands: plain commands of concurrent callers share
// pipelines, each caller getting its own typed result, mixed with scripts.
func TestBatchedCommands(t *testing.T) {
	_, rdb, pc := batchRedis(t)
	ctx := context.Background()
	for i := range 100 {
		rdb.HSet(ctx, "h"+strconv.Itoa(i), "n", i)
	}
	pc.pipelines.Store(0)
	b, sc := NewBatcher(rdb, BatcherConfig{Size: 64, Lanes: 2}), redis.NewScript(echoLua)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 100 {
		wg.Go(func() {
			h, err := Batched(ctx, b, func(ctx context.Context, p redis.Pipeliner) *redis.MapStringStringCmd {
				return p.HGetAll(ctx, "h"+strconv.Itoa(i))
			}).Result()
			if err != nil || h["n"] != strconv.Itoa(i) {
				errs <- fmt.Errorf("hgetall %d: %v, %v", i, h, err)
			}
		})
		wg.Go(func() {
			if got, err := b.Script(ctx, sc, []string{"runs"}, "s").Text(); err != nil || got != "s" {
				errs <- fmt.Errorf("script %d: %q, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if p := pc.pipelines.Load(); p >= 200 {
		t.Errorf("200 calls sent %d pipelines: nothing was batched", p)
	}
}
