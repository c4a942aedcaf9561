package payout

import (
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
)

var (
	//go:embed scripts/request.lua
	requestLua string
	//go:embed scripts/move.lua
	moveLua string
	//go:embed scripts/destination.lua
	destinationLua string
)

// Config is the payouts' policy.
type Config struct {
	// CoolingOff is how long a new destination waits before payouts may go
	// to it: time for an owner to notice a change it did not make.
	CoolingOff time.Duration
	// CheckerWindow is how long an operator who changed a merchant's payout
	// destinations or settings may not decide that merchant's payouts.
	CheckerWindow time.Duration
	// IdempotencyTTL is how long an Idempotency-Key names its payout.
	IdempotencyTTL time.Duration
	// MaxDestinations bounds a merchant's saved destinations, removed ones
	// included (they stay for the payouts that name them).
	MaxDestinations int
	Now             func() time.Time
}

// Defaults are the documented defaults: 24 h of cooling-off and of
// maker-checker memory, keys kept 24 h, 20 destinations.
func Defaults() Config {
	return Config{CoolingOff: 24 * time.Hour, CheckerWindow: 24 * time.Hour, IdempotencyTTL: 24 * time.Hour,
		MaxDestinations: 20, Now: time.Now}
}

// Validate checks a configuration as given.
func (c Config) Validate() error {
	switch {
	case c.CoolingOff < 0 || c.CoolingOff > 30*24*time.Hour:
		return fmt.Errorf("payout cooling-off %v: 0 to 30 days", c.CoolingOff)
	case c.CheckerWindow < 0 || c.CheckerWindow > 30*24*time.Hour:
		return fmt.Errorf("payout checker window %v: 0 to 30 days", c.CheckerWindow)
	case c.IdempotencyTTL < time.Second:
		return fmt.Errorf("payout idempotency lifetime %v: at least 1 s", c.IdempotencyTTL)
	case c.MaxDestinations < 1 || c.MaxDestinations > 1000:
		return fmt.Errorf("payout destinations per merchant %d: 1 to 1000", c.MaxDestinations)
	}
	return nil
}

// Store keeps payouts and destinations and moves their money.
type Store struct {
	cfg                    Config
	rdb                    redis.UniversalClient
	j                      *journal.Journal
	request, move, destLua *redis.Script
	moves                  *prometheus.CounterVec
	log                    *slog.Logger
}

// New is a Store over rdb posting through j.
func New(cfg Config, rdb redis.UniversalClient, j *journal.Journal, reg prometheus.Registerer, log *slog.Logger) (*Store, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || j == nil {
		return nil, errors.New("payout store: a Redis client and a journal are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{cfg: cfg, rdb: rdb, j: j, log: log,
		request: audit.Script(journal.Library() + requestLua),
		move:    audit.Script(journal.Library() + moveLua),
		destLua: audit.Script(destinationLua),
		moves: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_payouts_total",
			Help: "Payout steps taken, by the state reached (requested, approved, rejected, sending, paid, failed)."},
			[]string{"state"}),
	}
	if reg != nil {
		if err := reg.Register(s.moves); err != nil {
			return nil, fmt.Errorf("register payout metrics: %w", err)
		}
	}
	return s, nil
}

func (s *Store) now() time.Time { return s.cfg.Now() }

// CheckerWindow is how long an operator who changed a merchant's payout
// settings may not decide its payouts, for the pages that say so.
func (s *Store) CheckerWindow() time.Duration { return s.cfg.CheckerWindow }

func isNil(err error) bool { return errors.Is(err, redis.Nil) }

func redisZ(at time.Time, member string) redis.Z {
	return redis.Z{Score: float64(at.UnixMilli()), Member: member}
}
