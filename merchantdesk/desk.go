package merchantdesk

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// Config is the desk's settings.
type Config struct {
	// KeyGrace is how long a rotated API key (query key, webhook secret) keeps
	// working when the person does not say; MaxGrace bounds what they may say.
	KeyGrace time.Duration
	MaxGrace time.Duration
	// TestEvery spaces a merchant's test events.
	TestEvery time.Duration
	// MaxResendRange bounds the time range of one "resend every dead".
	MaxResendRange time.Duration
	Clock          platform.Clock
}

// Defaults is a day of grace (a deploy window), at most a week.
func Defaults() Config {
	return Config{KeyGrace: 24 * time.Hour, MaxGrace: 7 * 24 * time.Hour, TestEvery: 10 * time.Second,
		MaxResendRange: 31 * 24 * time.Hour}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.MaxGrace <= 0 || c.KeyGrace < 0 || c.KeyGrace > c.MaxGrace {
		errs = append(errs, errors.New("key grace must be from 0 to the maximum grace, which must be positive"))
	}
	if c.TestEvery <= 0 || c.MaxResendRange <= 0 {
		errs = append(errs, errors.New("test event spacing and the resend range must be positive"))
	}
	return errors.Join(errs...)
}

// Deps are what the desk works on. Searcher may be nil (no ClickHouse on
// this node): the audit log is then unavailable, everything else works.
type Deps struct {
	Redis        redis.UniversalClient
	Merchants    *merchant.Store
	Accounts     *access.Accounts
	Webhooks     *dispatcher.MerchantDeliveries
	Tester       *dispatcher.Tester
	Destinations *dispatcher.Destinations
	Searcher     *audit.Searcher
	Log          *slog.Logger
}

// Desk is the use cases of the four pages.
type Desk struct {
	cfg Config
	Deps
	audit   *audit.Log
	resends *dispatcher.Webhooks // the one resend (dispatcher/resend.go)
	now     func() time.Time
}

// New checks cfg and the dependencies.
func New(cfg Config, deps Deps) (*Desk, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("merchant desk config: %w", err)
	}
	if deps.Redis == nil || deps.Merchants == nil || deps.Accounts == nil || deps.Webhooks == nil ||
		deps.Tester == nil || deps.Destinations == nil || deps.Log == nil {
		return nil, errors.New("merchant desk: redis, merchants, accounts, webhooks, tester, destinations and logger are required")
	}
	return &Desk{cfg: cfg, Deps: deps, audit: audit.NewLog(deps.Redis), resends: dispatcher.NewWebhooks(deps.Redis).WithClock(cfg.Clock.Now),
		now: cfg.Clock.Now}, nil
}

// Who is the person asking: their console session and source address.
type Who struct {
	Session *access.Session
	IP      string
}

// errForbidden is every refusal by role: the page shows it as 403.
var errForbidden = &platform.Error{Kind: platform.KindForbidden, Msg: "your role does not allow this action", Err: access.ErrForbidden}

// may returns the session's merchant when its person may do p there.
func (d *Desk) may(w Who, p access.Permission) (string, error) {
	if w.Session == nil || w.Session.AppID == "" || !access.Can(w.Session, access.RealmMerchant, p) {
		return "", errForbidden
	}
	return w.Session.AppID, nil
}

// entry is the audit entry of w's action on target.
func (d *Desk) entry(w Who, action, target string, details map[string]string) audit.Entry {
	return audit.Entry{At: d.now(), ActorID: w.Session.UserID, ActorEmail: w.Session.Email, Realm: audit.RealmMerchant,
		Role: string(w.Session.Role), Action: action, Target: target, AppID: w.Session.AppID, Source: w.IP, Details: details}
}

// actor is w as package access takes it.
func actor(w Who) access.Actor { return access.ActorOf(w.Session, w.IP) }

func invalid(format string, a ...any) error {
	return platform.Errorf(platform.KindInvalidParameter, format, a...)
}

func notFound(msg string) error { return platform.Errorf(platform.KindNotFound, "%s", msg) }
