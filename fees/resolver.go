package fees

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// key is a schedule's place in a Resolver's copy: a struct, so a lookup
// builds no string on the create path.
type key struct {
	appid string
	m     schema.Method
	cur   string
}

// snapshot is one reading of every schedule with the version it was read at.
type snapshot struct {
	version string
	byKey   map[key]schema.FeeSchedule
}

// Resolver is every process's copy of the schedules: Run polls the version
// key (schema.FeesVersionKey) and reloads the whole copy when it moved, so
// a change reaches every process within one interval; For never touches
// Redis.
type Resolver struct {
	store *Store
	every time.Duration
	log   *slog.Logger
	cur   atomic.Pointer[snapshot]
}

// NewResolver makes a copy polled every interval (a second by default);
// it is empty, and so charges nothing, until Load.
func NewResolver(store *Store, every time.Duration, log *slog.Logger) *Resolver {
	if every <= 0 {
		every = time.Second
	}
	r := &Resolver{store: store, every: every, log: log}
	r.cur.Store(&snapshot{byKey: map[key]schema.FeeSchedule{}})
	return r
}

// For is the schedule in force for appid's order of method m in currency
// cur: the merchant's override, else the operator's default, else zero.
func (r *Resolver) For(appid string, m schema.Method, cur string) schema.FeeSchedule {
	s := r.cur.Load()
	if len(s.byKey) == 0 {
		return schema.FeeSchedule{}
	}
	if f, ok := s.byKey[key{appid, m, cur}]; ok {
		return f
	}
	return s.byKey[key{"", m, cur}]
}

// Load reads every schedule now, with the version in the same
// transaction; the process calls it once before serving.
func (r *Resolver) Load(ctx context.Context) error {
	var ver *redis.StringCmd
	var all *redis.MapStringStringCmd
	_, err := r.store.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		ver = p.Get(ctx, schema.FeesVersionKey)
		all = p.HGetAll(ctx, schema.FeesKey)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read fee schedules: %w", err)
	}
	list, err := decodeAll(all.Val())
	if err != nil {
		return err
	}
	s := &snapshot{version: ver.Val(), byKey: make(map[key]schema.FeeSchedule, len(list))}
	for _, sc := range list {
		s.byKey[key{sc.AppID, sc.Method, sc.Currency}] = sc.Fee
	}
	r.cur.Store(s)
	return nil
}

// Run refreshes until ctx ends: one GET of the version per interval, the
// whole copy only when it moved. A failed refresh keeps the last copy.
func (r *Resolver) Run(ctx context.Context) {
	platform.Every(ctx, r.every, r.refresh)
}

func (r *Resolver) refresh(ctx context.Context) {
	v, err := r.store.rdb.Get(ctx, schema.FeesVersionKey).Result()
	if errors.Is(err, redis.Nil) { // never changed: nothing set yet
		v, err = "", nil
	}
	if err == nil && v == r.cur.Load().version {
		return
	}
	if err == nil {
		err = r.Load(ctx)
	}
	if err != nil && ctx.Err() == nil {
		r.log.Warn("refresh fee schedules", "err", err)
	}
}
