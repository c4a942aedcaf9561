package selfservice

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
)

// Config is the use cases' settings.
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

// Deps are what the use cases work on. Searcher may be nil (no ClickHouse
// on this node): the audit log is then unavailable, everything else works.
type Deps struct {
	Redis        redis.UniversalClient
	Merchants    *merchant.Store
	Accounts     *access.Accounts
	Webhooks     *dispatcher.MerchantDeliveries
	Tester       *dispatcher.Tester
	Destinations *dispatcher.Destinations
	Searcher     *audit.Searcher
	// Journal reads the balances (nil: one over Redis); Statements the
	// journal's copy in ClickHouse (nil: the Balance page shows balances
	// only).
	Journal    *journal.Journal
	Statements *query.Statements
	// Payouts keeps destinations and payouts (nil: the Payouts page says
	// this node does not serve them).
	Payouts *payout.Store
	// Endpoints keeps the merchant's webhook endpoints (nil: the Webhooks
	// page says this node does not serve them); EndpointDeliveries is the
	// delivery engine (nil: their deliveries are unavailable).
	Endpoints          *events.Store
	EndpointDeliveries events.EndpointDeliveries
	Log                *slog.Logger
}

// Services are the use cases of the four pages, one small type per thing
// they change, built together from one Config and Deps so that the pages
// (and any later door) wire them in one call.
type Services struct {
	Webhooks *Webhooks // callback, test event, deliveries and their resends
	Keys     *Keys     // credentials, rotations, the signature debugger
	Balance  *Balance  // balances, transactions, statements
	Team     *Team     // users, roles, TOTP policy
	AuditLog *AuditLog // the merchant's audit entries
	Payouts  *Payouts  // destinations and payouts
	// Endpoints are the webhook endpoints and their deliveries.
	Endpoints *Endpoints
}

// New checks cfg and the dependencies and builds every use case.
func New(cfg Config, deps Deps) (*Services, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("self-service config: %w", err)
	}
	if deps.Redis == nil || deps.Merchants == nil || deps.Accounts == nil || deps.Webhooks == nil ||
		deps.Tester == nil || deps.Destinations == nil || deps.Log == nil {
		return nil, errors.New("self-service: redis, merchants, accounts, webhooks, tester, destinations and logger are required")
	}
	log, now := audit.NewLog(deps.Redis), cfg.Clock.Now
	strong := secondFactor{accounts: deps.Accounts}
	if deps.Journal == nil {
		j, err := journal.New(journal.Config{}, deps.Redis, nil, deps.Log)
		if err != nil {
			return nil, err
		}
		deps.Journal = j
	}
	return &Services{
		Webhooks: &Webhooks{testEvery: cfg.TestEvery, maxResendRange: cfg.MaxResendRange, rdb: deps.Redis,
			merchants: deps.Merchants, deliveries: deps.Webhooks, tester: deps.Tester, destinations: deps.Destinations,
			audit: log, resends: dispatcher.NewWebhooks(deps.Redis).WithClock(now), now: now, strong: strong},
		Keys:      &Keys{keyGrace: cfg.KeyGrace, maxGrace: cfg.MaxGrace, merchants: deps.Merchants, now: now, strong: strong},
		Balance:   &Balance{journal: deps.Journal, statements: deps.Statements, now: now},
		Team:      &Team{accounts: deps.Accounts, team: access.NewTeam(deps.Accounts)},
		AuditLog:  &AuditLog{searcher: deps.Searcher, audit: log, now: now},
		Payouts:   &Payouts{store: deps.Payouts, accounts: deps.Accounts, merchants: deps.Merchants, now: now},
		Endpoints: &Endpoints{store: deps.Endpoints, deliveries: deps.EndpointDeliveries, strong: strong, now: now},
	}, nil
}

// errForbidden is every refusal by role: the page shows it as 403.
var errForbidden = &platform.Error{Kind: platform.KindForbidden, Msg: "your role does not allow this action", Err: access.ErrForbidden}

// may returns the actor's merchant when its person may do p there: a
// merchant console user of a merchant, whose role grants p.
func may(a access.Actor, p access.Permission) (string, error) {
	if a.AppID == "" || !a.Can(access.RealmMerchant, p) {
		return "", errForbidden
	}
	return a.AppID, nil
}

// entry is the audit entry of a's action on target at at.
func entry(at time.Time, a access.Actor, action, target string, details map[string]string) audit.Entry {
	return audit.Entry{At: at, ActorID: a.ID, ActorEmail: a.Email, Realm: audit.RealmMerchant,
		Role: string(a.Role), Action: action, Target: target, AppID: a.AppID, Source: a.Source, Details: details}
}

func invalid(format string, a ...any) error {
	return platform.Errorf(platform.KindInvalidParameter, format, a...)
}

func notFound(msg string) error { return platform.Errorf(platform.KindNotFound, "%s", msg) }
