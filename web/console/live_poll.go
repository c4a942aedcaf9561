package console

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// poll reads the newest entries (at most Count a stream) every stream got
// since last, gathers the changes of the merchants someone watches and
// hands each of them its one message. skipped: some stream had Count new
// entries or more, so older ones may have been passed over; every watched
// merchant's message then carries the reload hint.
func (h *Hub) poll(ctx context.Context, last map[string]string) (skipped bool, err error) {
	cmds := make([]*redis.RawCmd, len(h.streams))
	_, err = h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, st := range h.streams {
			// XREVRANGE key + (last COUNT n: the newest n after last. The
			// key is the 2nd argument (Redis Cluster routes by it).
			cmds[i] = redis.NewRawCmd(ctx, "xrevrange", st, "+", "("+last[st], "count", h.cfg.Count)
			cmds[i].SetFirstKeyPos(1)
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
	var got []rawEntry
	for i, cmd := range cmds {
		raw, err := cmd.Result()
		if err != nil {
			return false, fmt.Errorf("read %s: %w", h.streams[i], err)
		}
		got = got[:0]
		newest, n, err := walkXRevRange(raw, func(e *rawEntry) { got = append(got, *e) })
		if err != nil {
			return false, fmt.Errorf("read %s: %w", h.streams[i], err)
		}
		if n > 0 {
			last[h.streams[i]] = string(newest)
		}
		for j := len(got) - 1; j >= 0; j-- { // oldest first: the latest state wins
			h.collect(batches, watched, &got[j])
		}
		skipped = skipped || int64(n) >= h.cfg.Count
	}
	// Every poll, before anything is handed out: a feed whose session
	// ended (logout, "log out everywhere", revoked, removed, disabled,
	// timed out) ends, and gets nothing that was read after.
	h.endEnded(ctx)
	if skipped {
		h.behind.Inc()
		for appid := range watched {
			if batches[appid] == nil {
				batches[appid] = newBatch()
			}
			batches[appid].skipped = true
		}
	}
	h.deliver(batches)
	return skipped, nil
}

// endEnded ends the feeds whose session no longer stands: one pipeline of
// EXISTS for all of them. When Redis cannot say, every feed ends (the
// browsers reconnect through the full session check).
func (h *Hub) endEnded(ctx context.Context) {
	h.mu.Lock()
	subs := make([]*Sub, 0, h.n)
	ids := make([]string, 0, h.n)
	for _, m := range h.subs {
		for s := range m {
			subs, ids = append(subs, s), append(ids, s.session)
		}
	}
	h.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	alive, err := h.sessions.Alive(ctx, ids)
	if err != nil {
		h.log.Warn("console live feed: check the feeds' sessions", "err", err)
	}
	for i, s := range subs {
		if err != nil || !alive[i] {
			h.Unsubscribe(s)
			s.end()
		}
	}
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
