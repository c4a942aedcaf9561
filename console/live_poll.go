package console

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// poll reads what every stream got since last (at most Count entries a
// stream), gathers the changes of the merchants someone watches and
// hands each of them its one message. full: some stream had more than
// Count new entries, so the hub is behind and should poll again at once.
func (h *Hub) poll(ctx context.Context, last map[string]string) (full bool, err error) {
	cmds := make([]*redis.RawCmd, len(h.streams))
	_, err = h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range h.streams {
			// XREAD COUNT n STREAMS key id, without BLOCK: no connection
			// waits. The key is the 5th argument (Redis Cluster routes by it).
			cmds[i] = redis.NewRawCmd(ctx, "xread", "count", h.cfg.Count, "streams", st, last[st])
			cmds[i].SetFirstKeyPos(4)
			_ = p.Process(ctx, cmds[i])
		}
		return nil
	})
	h.reads.Inc()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("read the event streams: %w", err)
	}
	watched := h.watched()
	batches := map[string]*batch{}
	collect := func(e *rawEntry) { h.collect(batches, watched, e) }
	for i, cmd := range cmds {
		raw, err := cmd.Result()
		if err != nil {
			return false, fmt.Errorf("read %s: %w", h.streams[i], err)
		}
		id, n, err := walkXRead(raw, collect)
		if err != nil {
			return false, fmt.Errorf("read %s: %w", h.streams[i], err)
		}
		if n > 0 {
			last[h.streams[i]] = string(id)
		}
		full = full || int64(n) >= h.cfg.Count
	}
	if full {
		h.behind.Inc()
	}
	h.deliver(batches)
	return full, nil
}

// watched are the merchants with an open feed as the poll starts; the
// events of every other merchant are skipped after one field.
func (h *Hub) watched() map[string]struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := make(map[string]struct{}, len(h.subs))
	for appid := range h.subs {
		w[appid] = struct{}{}
	}
	return w
}

// collect notes one stream entry in its merchant's batch, if anyone
// watches that merchant.
func (h *Hub) collect(batches map[string]*batch, watched map[string]struct{}, e *rawEntry) {
	if _, ok := watched[string(e.appid)]; !ok {
		return
	}
	b := batches[string(e.appid)]
	if b == nil {
		b = newBatch()
		batches[string(e.appid)] = b
	}
	if b.add(e) {
		h.events.Inc()
	}
}

// deliver renders each merchant's batch once and hands the bytes to every
// feed of the merchant. A feed still holding the previous message is too
// slow: it gets this poll's message with the reload hint instead, and
// nobody waits for it.
func (h *Hub) deliver(batches map[string]*batch) {
	for appid, b := range batches {
		m := b.message(h.cfg.MaxOrders)
		if m == nil {
			continue
		}
		h.messages.Inc()
		h.mu.Lock()
		for s := range h.subs[appid] {
			h.sent.Inc()
			if !s.offer(m) {
				h.drops.Inc()
			}
		}
		h.mu.Unlock()
	}
}
