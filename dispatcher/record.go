package dispatcher

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// finishBatch bounds the attempt records sent to Redis in one pipeline.
const finishBatch = 128

// finishers is how many pipelines of records may be in flight at once: two,
// so that records arriving while one pipeline waits on Redis's fsync are
// already on their way in the next.
const finishers = 2

// finishCall is one attempt's record on its way to Redis.
type finishCall struct {
	keys  []string
	args  []any
	reply chan finishReply
}

type finishReply struct {
	raw []any
	err error
}

// evalCall is one script run of a pipeline.
type evalCall struct {
	keys []string
	args []any
}

// evalPipelined runs the script once per call in one pipeline: a batch of
// changes costs one round trip and one fsync instead of one each. EVALSHA
// in a pipeline cannot fall back to EVAL by itself: after a NOSCRIPT (Redis
// restarted) the script is loaded and the calls it refused run again.
// The result i belongs to calls[i].
func evalPipelined(ctx context.Context, rdb *redis.Client, sc *redis.Script, calls []evalCall) []*redis.Cmd {
	out := make([]*redis.Cmd, len(calls))
	todo := make([]int, len(calls))
	for i := range todo {
		todo[i] = i
	}
	for round := 0; round < 2 && len(todo) > 0; round++ {
		_, _ = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, i := range todo {
				out[i] = sc.EvalSha(ctx, p, calls[i].keys, calls[i].args...)
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

// startFinishers sends attempt records to Redis in pipelines until stop is
// called; stop returns once the pipelines in flight have their answers.
// Without them (a store used on its own) each record is its own call.
func (s *store) startFinishers() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	s.finishes = make(chan *finishCall, finishBatch)
	done := make(chan struct{}, finishers)
	for range finishers {
		go func() {
			defer func() { done <- struct{}{} }()
			s.finisher(ctx)
		}()
	}
	return func() {
		cancel()
		for range finishers {
			<-done
		}
	}
}

// finisher takes whatever records are waiting, up to finishBatch, and runs
// them in one pipeline.
func (s *store) finisher(ctx context.Context) {
	batch := make([]*finishCall, 0, finishBatch)
	calls := make([]evalCall, 0, finishBatch)
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return
		case c := <-s.finishes:
			batch = append(batch, c)
		}
	more:
		for len(batch) < finishBatch {
			select {
			case c := <-s.finishes:
				batch = append(batch, c)
			default:
				break more
			}
		}
		calls = calls[:0]
		for _, c := range batch {
			calls = append(calls, evalCall{keys: c.keys, args: c.args})
		}
		// Each caller bounds its own wait; the pipeline gets the same bound.
		pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmds := evalPipelined(pctx, s.rdb, s.finish, calls)
		cancel()
		for i, c := range batch {
			raw, err := cmds[i].Slice()
			c.reply <- finishReply{raw: raw, err: err}
		}
	}
}

// record stores an attempt and moves its delivery on; next is the delay
// before the next automatic attempt, or negative when none is left. With a
// token prefix it also claims the next due delivery of the same host queue
// and returns it, so the attempt's slot goes straight on to it.
func (s *store) record(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, next time.Duration, tokenPrefix string) (string, *job, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return "", nil, fmt.Errorf("encode attempt of %s: %w", j.id, err)
	}
	keys := []string{schema.WebhookKey(j.shard, j.id), schema.WebhookLogKey(j.shard, j.id),
		schema.WebhookQueueKey(j.shard, j.host), schema.WebhookHostsKey(j.shard),
		schema.WebhookDeadKey(j.shard), schema.OrderKey(j.shard, j.id)}
	nextMS := int64(-1)
	if next >= 0 {
		nextMS = next.Milliseconds()
	}
	ackFlag := "0"
	if ack {
		ackFlag = "1"
	}
	args := []any{j.id, j.host, j.token, ackFlag, body, nextMS, s.cfg.Retention.Milliseconds(), s.cfg.LogCap,
		(s.cfg.lease() + pendingFloor).Milliseconds(), schema.WebhookKey(j.shard, ""), schema.WebhookLogKey(j.shard, ""),
		s.cfg.lease().Milliseconds(), tokenPrefix}
	raw, err := s.runFinish(ctx, keys, args)
	if err != nil {
		return "", nil, fmt.Errorf("record webhook attempt of %s: %w", j.id, err)
	}
	if len(raw) == 0 {
		return "", nil, fmt.Errorf("record webhook attempt of %s: empty answer", j.id)
	}
	out, _ := raw[0].(string)
	if len(raw) < 1+jobFields {
		return out, nil, nil
	}
	nj := decodeJob(j.shard, raw[1:1+jobFields])
	nj.claimed = time.Now()
	return out, &nj, nil
}

// runFinish runs the finish script through the finishers when they run.
func (s *store) runFinish(ctx context.Context, keys []string, args []any) ([]any, error) {
	if s.finishes == nil {
		return s.finish.Run(ctx, s.rdb, keys, args...).Slice()
	}
	c := &finishCall{keys: keys, args: args, reply: make(chan finishReply, 1)}
	select {
	case s.finishes <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r.raw, r.err
	case <-ctx.Done():
		// The finisher still answers into the buffered channel; the record
		// may have been made, which the caller's retry finds harmless.
		return nil, ctx.Err()
	}
}
