package events

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

//go:embed scripts/save.lua
var saveLua string

// URLChecker judges an endpoint's URL by the dispatcher's address rules
// (a *dispatcher.Destinations): refused at once rather than at every
// attempt. The dispatcher still checks at each connection.
type URLChecker interface {
	Check(ctx context.Context, raw string) error
}

// Config bounds a merchant's endpoints.
type Config struct {
	// Max is the most endpoints one merchant keeps.
	Max int
	// Overlap is how long a rotated-out secret still signs, by default.
	Overlap time.Duration
	Now     func() time.Time
}

// Defaults: 10 endpoints, 24 h overlap.
func Defaults() Config { return Config{Max: 10, Overlap: 24 * time.Hour} }

// Validate checks a configuration as given.
func (c Config) Validate() error {
	switch {
	case c.Max < 1 || c.Max > 100:
		return fmt.Errorf("webhook endpoints per merchant %d: 1 to 100", c.Max)
	case c.Overlap < 0 || c.Overlap > 30*24*time.Hour:
		return fmt.Errorf("webhook secret overlap %v: 0 to 720h", c.Overlap)
	}
	return nil
}

// Store keeps merchants' webhook endpoints in Redis, on each merchant's
// home shard.
type Store struct {
	cfg   Config
	rdb   redis.UniversalClient
	urls  URLChecker
	save  *redis.Script
	saved *prometheus.CounterVec
	log   *slog.Logger
}

// Audit actions of endpoints.
const (
	ActionAdd     = "webhook_endpoint.add"
	ActionUpdate  = "webhook_endpoint.update"
	ActionRotate  = "webhook_endpoint.rotate_secret"
	ActionRemove  = "webhook_endpoint.remove"
	ActionDisable = "webhook_endpoint.disable"
)

// NewStore is a Store over rdb checking URLs with urls.
func NewStore(cfg Config, rdb redis.UniversalClient, urls URLChecker, reg prometheus.Registerer, log *slog.Logger) (*Store, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || urls == nil {
		return nil, errors.New("webhook endpoints: a Redis client and a URL checker are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{cfg: cfg, rdb: rdb, urls: urls, log: log, save: audit.Script(saveLua),
		saved: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_webhook_endpoint_changes_total",
			Help: "Webhook endpoint changes, by action (add, update, rotate_secret, remove, disable)."}, []string{"action"})}
	if reg != nil {
		if err := reg.Register(s.saved); err != nil {
			return nil, fmt.Errorf("register webhook endpoint metrics: %w", err)
		}
	}
	return s, nil
}

// List is appid's endpoints, oldest first.
func (s *Store) List(ctx context.Context, appid string) ([]Endpoint, error) {
	all, err := s.rdb.HGetAll(ctx, schema.EndpointsKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook endpoints: %w", err)
	}
	out := make([]Endpoint, 0, len(all))
	for _, raw := range all {
		e, err := decodeEndpoint(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sortEndpoints(out)
	return out, nil
}

// Subscribed is appid's enabled endpoints that take t.
func (s *Store) Subscribed(ctx context.Context, appid string, t Type) ([]Endpoint, error) {
	all, err := s.List(ctx, appid)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, e := range all {
		if e.Wants(t) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Get is endpoint id of appid: 404 when it is another merchant's or none.
func (s *Store) Get(ctx context.Context, appid, id string) (Endpoint, error) {
	e, _, err := s.get(ctx, appid, id)
	return e, err
}

func (s *Store) get(ctx context.Context, appid, id string) (Endpoint, string, error) {
	raw, err := s.rdb.HGet(ctx, schema.EndpointsKey(appid), id).Result()
	if errors.Is(err, redis.Nil) {
		return Endpoint{}, "", platform.Errorf(platform.KindNotFound, "no such webhook endpoint")
	}
	if err != nil {
		return Endpoint{}, "", fmt.Errorf("read webhook endpoint: %w", err)
	}
	e, err := decodeEndpoint(raw)
	return e, raw, err
}

// write runs the save script: next replaces prev (” new; next ” deletes).
func (s *Store) write(ctx context.Context, appid, id, next, prev string, e audit.Entry) error {
	args, err := audit.ScriptArgs([]any{id, next, prev, s.cfg.Max}, e)
	if err != nil {
		return err
	}
	sh := schema.HomeShard(appid)
	res, err := s.save.Run(ctx, s.rdb, []string{schema.EndpointsKey(appid), schema.AuditKey(sh.Tag())}, args...).Int64Slice()
	if err != nil {
		return fmt.Errorf("save webhook endpoint: %w", err)
	}
	switch res[0] {
	case 0:
		return platform.Errorf(platform.KindConflict, "a merchant keeps at most %d webhook endpoints", s.cfg.Max)
	case 6:
		return platform.Errorf(platform.KindConflict, "the endpoint changed meanwhile; reload and try again")
	}
	s.saved.WithLabelValues(actionLabel(e.Action)).Inc()
	return nil
}

func actionLabel(action string) string {
	for _, a := range []string{ActionAdd, ActionUpdate, ActionRotate, ActionRemove, ActionDisable} {
		if a == action {
			return action[len("webhook_endpoint."):]
		}
	}
	return "other"
}

func newEndpointID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "ep_" + hex.EncodeToString(b[:])
}

func newSecret() string { return merchant.NewWebhookSecret() }
