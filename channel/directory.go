package channel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Snapshot is one reading of the routing data, with the version it was
// read at. It is never changed once published.
type Snapshot struct {
	Version  string
	Settings map[Ref]Settings
	Breakers map[Ref]Breaker
	Modes    map[string]Mode     // by methodKey
	Pins     map[string][]string // by appid + ":" + methodKey
	Keywords []string
}

// SettingsOf is r's settings (Defaults when none are stored).
func (s *Snapshot) SettingsOf(r Ref) Settings {
	if v, ok := s.Settings[r]; ok {
		return v
	}
	return Defaults()
}

// BreakerOf is r's breaker (closed when none is stored).
func (s *Snapshot) BreakerOf(r Ref) Breaker {
	if b, ok := s.Breakers[r]; ok {
		return b
	}
	return Breaker{State: Closed}
}

// ModeOf is the ranking of method m's channels (priority by default).
func (s *Snapshot) ModeOf(sandbox bool, m schema.Method) Mode {
	if v, ok := s.Modes[methodKey(sandbox, m)]; ok {
		return v
	}
	return ModePriority
}

// PinOf is merchant appid's own channel set for m, nil when it has none.
func (s *Snapshot) PinOf(appid string, sandbox bool, m schema.Method) []string {
	if len(s.Pins) == 0 {
		return nil
	}
	return s.Pins[appid+":"+methodKey(sandbox, m)]
}

// Directory is every process's copy of the routing data: Run polls the
// version key and reloads the whole copy when it moved, so a change
// reaches every process within one interval; reads never touch Redis.
type Directory struct {
	rdb   redis.Cmdable
	every time.Duration
	log   *slog.Logger
	cur   atomic.Pointer[Snapshot]
}

// NewDirectory makes a copy polled every interval (a second by default);
// until Load it holds no routing data, so every configured channel routes
// on its defaults.
func NewDirectory(rdb redis.Cmdable, every time.Duration, log *slog.Logger) *Directory {
	if every <= 0 {
		every = time.Second
	}
	d := &Directory{rdb: rdb, every: every, log: log}
	d.cur.Store(&Snapshot{})
	return d
}

// Now is the copy as last read.
func (d *Directory) Now() *Snapshot { return d.cur.Load() }

// Load reads the routing data now, with the version in the same
// transaction; the process calls it once before serving.
func (d *Directory) Load(ctx context.Context) error {
	var ver *redis.StringCmd
	var all, brk *redis.MapStringStringCmd
	_, err := d.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		ver = p.Get(ctx, schema.ChannelsVersionKey)
		all = p.HGetAll(ctx, schema.ChannelsKey)
		brk = p.HGetAll(ctx, schema.ChannelBreakersKey)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read channel routing: %w", err)
	}
	s, err := decodeSnapshot(all.Val(), brk.Val())
	if err != nil {
		return err
	}
	s.Version = ver.Val()
	d.cur.Store(s)
	return nil
}

// Run reloads the copy whenever the version moves, until ctx ends.
func (d *Directory) Run(ctx context.Context) { platform.Every(ctx, d.every, d.refresh) }

// refresh reloads the copy when the version moved since it was read.
func (d *Directory) refresh(ctx context.Context) {
	v, err := d.rdb.Get(ctx, schema.ChannelsVersionKey).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		d.log.Warn("poll channel routing version", "err", err)
		return
	}
	if v == d.cur.Load().Version {
		return
	}
	if err := d.Load(ctx); err != nil {
		d.log.Warn("reload channel routing", "err", err)
	}
}

// decodeSnapshot reads the two hashes. A field that does not decode is an
// error: the process keeps routing on its last good copy and says so.
func decodeSnapshot(all, brk map[string]string) (*Snapshot, error) {
	s := &Snapshot{Settings: map[Ref]Settings{}, Breakers: map[Ref]Breaker{}, Modes: map[string]Mode{}, Pins: map[string][]string{}}
	for f, v := range all {
		if err := s.add(f, v); err != nil {
			return nil, err
		}
	}
	for f, v := range brk {
		r, err := ParseRef(f)
		if err != nil {
			return nil, err
		}
		if s.Breakers[r], err = decodeBreaker(v); err != nil {
			return nil, fmt.Errorf("breaker of %s: %w", f, err)
		}
	}
	return s, nil
}

func (s *Snapshot) add(field, v string) error {
	kind, rest, _ := strings.Cut(field, ":")
	switch kind {
	case "c":
		r, err := ParseRef(rest)
		if err != nil {
			return err
		}
		if s.Settings[r], err = decodeSettings(v); err != nil {
			return fmt.Errorf("settings of %s: %w", rest, err)
		}
	case "mode":
		s.Modes[rest] = Mode(v)
	case "pin":
		if v != "" {
			s.Pins[rest] = strings.Split(v, ",")
		}
	case keywordsField:
		if v != "" {
			s.Keywords = strings.Split(v, "\n")
		}
	}
	return nil
}
