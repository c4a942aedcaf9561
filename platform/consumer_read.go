package platform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Start runs the readers until ctx ends. Call it once, after EnsureGroups
// and after any Pending reads (a reader's entries would show up there too).
func (c *Consumer) Start(ctx context.Context) {
	for _, streams := range c.groups {
		c.readers.Add(1)
		go func() {
			defer c.readers.Done()
			c.reader(ctx, streams)
		}()
	}
}

// Stop waits for the readers to end once ctx (Start's) has ended, at most
// one Block, and returns what they read that Next did not hand out: the
// caller handles and acknowledges it, so a stopping process leaves nothing
// pending under its name for others to wait ClaimIdle for.
func (c *Consumer) Stop() []redis.XStream {
	c.readers.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	left := c.left
	c.left = nil
	return left
}

// reader blocks on its streams' new entries and hands each read to Next; it
// waits for Next to take one before reading on, so what is read and not yet
// handled is one read per reader.
func (c *Consumer) reader(ctx context.Context, streams []string) {
	args := make([]string, 0, 2*len(streams))
	args = append(args, streams...)
	for range streams {
		args = append(args, ">")
	}
	var pause backoff
	// A read once sent is read to its end even when ctx ends meanwhile:
	// its entries are pending under our name by then, and Stop returns them.
	rctx := context.WithoutCancel(ctx)
	for ctx.Err() == nil {
		res, err := c.rdb.XReadGroup(rctx, &redis.XReadGroupArgs{
			Group: c.cfg.Group, Consumer: c.cfg.Name, Streams: args, Count: int64(c.cfg.Count), Block: c.cfg.Block,
		}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.fail("read streams", err)
			c.recover(ctx, streams, err)
			pause.wait(ctx)
			continue
		}
		pause.reset()
		select {
		case c.reads <- res:
		case <-ctx.Done():
			c.mu.Lock()
			c.left = append(c.left, res...)
			c.mu.Unlock()
			return
		}
	}
}

// Next waits up to wait for what a reader got (not at all for wait <= 0),
// then takes every other read already waiting, until max entries (a read is
// never split, so the answer may hold a little more). Nil when nothing came.
// A stream may appear more than once in the answer.
func (c *Consumer) Next(ctx context.Context, wait time.Duration, max int) []redis.XStream {
	var out []redis.XStream
	n := 0
	take := func(res []redis.XStream) {
		for _, st := range res {
			out = append(out, st)
			n += len(st.Messages)
		}
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case res := <-c.reads:
			take(res)
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	for n < max {
		select {
		case res := <-c.reads:
			take(res)
		default:
			return out
		}
	}
	return out
}

// Pending reads up to count entries of each stream that were given to this
// consumer name and never acknowledged (a restart under the same name), in
// one pipeline, which go-redis sends to each cluster node at once. Entries
// stay pending until acknowledged, so reading again after Ack goes on.
func (c *Consumer) Pending(ctx context.Context, count int) ([]redis.XStream, error) {
	cmds := make([]*redis.XStreamSliceCmd, len(c.groups))
	_, _ = c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, streams := range c.groups {
			args := append(append([]string{}, streams...), make([]string, len(streams))...)
			for k := range streams {
				args[len(streams)+k] = "0"
			}
			cmds[i] = p.XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: c.cfg.Group, Consumer: c.cfg.Name, Streams: args, Count: int64(count), Block: -1,
			})
		}
		return nil
	})
	var out []redis.XStream
	var errs []error
	for i, cmd := range cmds {
		res, err := cmd.Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			c.recover(ctx, c.groups[i], err)
			errs = append(errs, fmt.Errorf("read own pending entries: %w", err))
			continue
		}
		for _, st := range res {
			if len(st.Messages) > 0 {
				out = append(out, st)
			}
		}
	}
	return out, errors.Join(errs...)
}

// Claim takes over entries other consumers read and left unacknowledged for
// ClaimIdle (they crashed, or Redis failed under them), stream by stream,
// count at a time, handing each slice to fn; fn answers whether to go on.
// An entry trimmed while pending comes with no values.
func (c *Consumer) Claim(ctx context.Context, count int, fn func(redis.XStream) bool) {
	for _, stream := range c.cfg.Streams {
		start := "0-0"
		for ctx.Err() == nil {
			msgs, next, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: stream, Group: c.cfg.Group, Consumer: c.cfg.Name, MinIdle: c.cfg.ClaimIdle,
				Start: start, Count: int64(count),
			}).Result()
			if err != nil {
				if ctx.Err() == nil {
					c.fail("claim idle entries of "+stream, err)
					c.recover(ctx, []string{stream}, err)
				}
				break
			}
			if len(msgs) > 0 && !fn(redis.XStream{Stream: stream, Messages: msgs}) {
				return
			}
			if next == "0-0" || next == "" {
				break
			}
			start = next
		}
	}
}

// Ack acknowledges entries (stream -> ids) in one pipeline.
func (c *Consumer) Ack(ctx context.Context, acks map[string][]string) error {
	if len(acks) == 0 {
		return nil
	}
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for stream, ids := range acks {
			if len(ids) > 0 {
				p.XAck(ctx, stream, c.cfg.Group, ids...)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("acknowledge entries: %w", err)
	}
	return nil
}

// backoff spaces out retries after Redis errors: 100ms doubling to 5s.
type backoff struct{ d time.Duration }

func (b *backoff) wait(ctx context.Context) {
	b.d = min(max(2*b.d, 100*time.Millisecond), 5*time.Second)
	t := time.NewTimer(b.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (b *backoff) reset() { b.d = 0 }
