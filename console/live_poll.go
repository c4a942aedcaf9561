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
	cmds := make([]*redis.XStreamSliceCmd, len(h.streams))
	_, err = h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range h.streams {
			cmds[i] = p.XRead(ctx, &redis.XReadArgs{Streams: []string{st, last[st]}, Count: h.cfg.Count, Block: -1})
		}
		return nil
	})
	h.reads.Inc()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("read the event streams: %w", err)
	}
	watched := h.watched()
	batches := map[string]*batch{}
	for _, cmd := range cmds {
		res, _ := cmd.Result()
		for _, st := range res {
			full = full || int64(len(st.Messages)) >= h.cfg.Count
			for _, m := range st.Messages {
				last[st.Stream] = m.ID
				h.collect(batches, watched, m.Values)
			}
		}
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
func (h *Hub) collect(batches map[string]*batch, watched map[string]struct{}, v map[string]any) {
	appid, _ := v[fieldAppID].(string)
	if _, ok := watched[appid]; !ok {
		return
	}
	b := batches[appid]
	if b == nil {
		b = newBatch()
		batches[appid] = b
	}
	if b.add(v) {
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
