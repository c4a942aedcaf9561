package fx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// The keys are schema.FXRatesKey and schema.FXHistoryKey: one hash tag, so
// a set is one transaction on Redis Cluster too.
const (
	ratesKey   = schema.FXRatesKey
	historyKey = schema.FXHistoryKey
	historyMax = 10_000
)

// Entry is a rate as it was set.
type Entry struct {
	Pair Pair      `json:"-"`
	Base string    `json:"base"`
	Quot string    `json:"quote"`
	Rate string    `json:"rate"`
	At   time.Time `json:"at"`
	By   string    `json:"by,omitempty"`
}

// Store writes and reads rates in Redis.
type Store struct {
	rdb redis.Cmdable
	now func() time.Time
}

// NewStore wraps rdb.
func NewStore(rdb redis.Cmdable) *Store { return &Store{rdb: rdb, now: time.Now} }

// Set makes r the current rate of p and appends it to the history.
func (s *Store) Set(ctx context.Context, p Pair, r Rate, by string) (Entry, error) {
	e := Entry{Pair: p, Base: p.Base, Quot: p.Quote, Rate: r.String(), At: s.now().UTC().Truncate(time.Second), By: by}
	raw, err := json.Marshal(e)
	if err != nil {
		return e, err
	}
	_, err = s.rdb.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.HSet(ctx, ratesKey, p.String(), raw)
		tx.LPush(ctx, historyKey, raw)
		tx.LTrim(ctx, historyKey, 0, historyMax-1)
		return nil
	})
	if err != nil {
		return e, fmt.Errorf("set rate %s: %w", p, err)
	}
	return e, nil
}

// Seed sets p to r only when p has no rate yet: start-up values (the old
// GATEWAY_USDT_RATES) never overwrite what an operator set.
func (s *Store) Seed(ctx context.Context, p Pair, r Rate) error {
	e := Entry{Base: p.Base, Quot: p.Quote, Rate: r.String(), At: s.now().UTC().Truncate(time.Second), By: "seed"}
	raw, _ := json.Marshal(e)
	set, err := s.rdb.HSetNX(ctx, ratesKey, p.String(), raw).Result()
	if err != nil {
		return fmt.Errorf("seed rate %s: %w", p, err)
	}
	if set {
		return s.rdb.LPush(ctx, historyKey, raw).Err()
	}
	return nil
}

// Current reads every current rate.
func (s *Store) Current(ctx context.Context) (map[Pair]Rate, []Entry, error) {
	h, err := s.rdb.HGetAll(ctx, ratesKey).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("read rates: %w", err)
	}
	rates := make(map[Pair]Rate, len(h))
	entries := make([]Entry, 0, len(h))
	for k, v := range h {
		p, ok := ParsePair(k)
		e, err := decode(v)
		if !ok || err != nil {
			return nil, nil, fmt.Errorf("rate %s is unreadable: %q", k, v)
		}
		r, err := ParseRate(e.Rate)
		if err != nil {
			return nil, nil, fmt.Errorf("rate %s: %w", k, err)
		}
		e.Pair, rates[p] = p, r
		entries = append(entries, e)
	}
	return rates, entries, nil
}

// Get reads p's current rate; ok is false when p has none.
func (s *Store) Get(ctx context.Context, p Pair) (e Entry, r Rate, ok bool, err error) {
	v, err := s.rdb.HGet(ctx, ratesKey, p.String()).Result()
	if errors.Is(err, redis.Nil) {
		return Entry{}, 0, false, nil
	}
	if err != nil {
		return Entry{}, 0, false, fmt.Errorf("read rate %s: %w", p, err)
	}
	if e, err = decode(v); err != nil {
		return Entry{}, 0, false, err
	}
	if r, err = ParseRate(e.Rate); err != nil {
		return Entry{}, 0, false, fmt.Errorf("rate %s: %w", p, err)
	}
	return e, r, true, nil
}

// History lists the last n rates set, newest first.
func (s *Store) History(ctx context.Context, n int64) ([]Entry, error) {
	raw, err := s.rdb.LRange(ctx, historyKey, 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("read rate history: %w", err)
	}
	out := make([]Entry, 0, len(raw))
	for _, v := range raw {
		e, err := decode(v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func decode(v string) (Entry, error) {
	var e Entry
	if err := json.NewDecoder(strings.NewReader(v)).Decode(&e); err != nil {
		return e, fmt.Errorf("decode rate entry: %w", err)
	}
	e.Pair = Pair{e.Base, e.Quot}
	return e, nil
}
