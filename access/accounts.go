package access

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// Account is a console user or an operator as pages may show it: no
// password hash, TOTP secret or token is in it.
type Account struct {
	ID          string
	Realm       Realm
	AppID       string // merchant users only
	Email       string
	Role        Role
	Disabled    bool
	CreatedAt   time.Time
	PasswordSet bool
	TOTP        bool // enrolled
	// SecondFactorLocked: Config.SecondFactorLimit wrong codes in a row
	// after a right password; TOTP codes are refused until a recovery code
	// is used or an owner (an admin, for operators) unlocks it.
	SecondFactorLocked bool
}

// Actor is who asks for a change, for the audit entry and the checks: a
// console session's person, or the CLI.
type Actor struct {
	ID     string
	Email  string
	Realm  string // audit.RealmMerchant, RealmOperator, RealmCLI
	Role   Role
	AppID  string // a merchant user's merchant
	Source string // client IP, or "cli"
}

// CLI is the actor of a gateway CLI command.
func CLI() Actor { return Actor{Realm: audit.RealmCLI, Source: "cli"} }

// ActorOf is the person behind a session, acting from ip; no session is
// nobody (an Actor that may do nothing).
func ActorOf(s *Session, ip string) Actor {
	if s == nil {
		return Actor{Source: ip}
	}
	return Actor{ID: s.UserID, Email: s.Email, Realm: string(s.Realm), Role: s.Role, AppID: s.AppID, Source: ip}
}

// Can reports whether the actor's person may do p in realm: a console
// user of realm whose role grants p. The CLI and a person of the other
// realm may do nothing here, whatever the role, so a use case asks this
// and never looks at a session.
func (a Actor) Can(realm Realm, p Permission) bool {
	return a.Realm == string(realm) && a.Role.Valid(realm) && Allowed(a.Role, p)
}

// Errors the pages tell apart; each is a *platform.Error wrapping one of
// these, with a message safe to show.
var (
	ErrNotFound      = errors.New("account not found")
	ErrExists        = errors.New("an account with this e-mail exists")
	ErrForbidden     = errors.New("not allowed")
	ErrSetupToken    = errors.New("setup link unknown, used or expired")
	ErrTOTPRequired  = errors.New("TOTP enrolment required")
	ErrBadLogin      = errors.New("wrong e-mail, password or code")
	ErrWrongPassword = errors.New("wrong password")
	ErrWrongCode     = errors.New("wrong code")
	ErrCodeReplayed  = errors.New("code already used")
	ErrRecoveryUsed  = errors.New("recovery code unknown or used")
	ErrNoSession     = errors.New("no session")
	ErrFactorLocked  = errors.New("second factor locked")
	ErrNotLocked     = errors.New("second factor not locked")
)

// Accounts is the package's one service: accounts, setup, TOTP, logins
// and sessions.
type Accounts struct {
	cfg     Config
	rdb     redis.UniversalClient
	pw      *merchant.PasswordHasher
	limiter *platform.Limiter
	log     *slog.Logger
	audit   *audit.Log
	now     func() time.Time
	logins  *prometheus.CounterVec
}

// New wires the accounts. limiter must be the gateway's (its login class
// fails closed when Redis cannot answer); pw may be shared with the payer
// login so both bound the hashes running at once.
func New(cfg Config, rdb redis.UniversalClient, pw *merchant.PasswordHasher, limiter *platform.Limiter, reg prometheus.Registerer, log *slog.Logger) (*Accounts, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || pw == nil || limiter == nil || log == nil {
		return nil, errors.New("access: redis, password hasher, limiter and logger are required")
	}
	logins := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_console_logins_total", Help: "Console and operator logins, by realm and result.",
	}, []string{"realm", "result"})
	if err := reg.Register(logins); err != nil {
		return nil, fmt.Errorf("register console login metrics: %w", err)
	}
	return &Accounts{cfg: cfg, rdb: rdb, pw: pw, limiter: limiter, log: log, audit: audit.NewLog(rdb),
		now: cfg.Clock.Now, logins: logins}, nil
}

// normEmail is the e-mail's one spelling: trimmed, lower case, a bare
// address of at most 254 bytes; ok false when it is none.
func normEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > 254 {
		return "", false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", false
	}
	return s, true
}

// Get reads one account.
func (a *Accounts) Get(ctx context.Context, id string) (*Account, error) {
	h, err := a.rdb.HGetAll(ctx, userKey(id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read account: %w", err)
	}
	if len(h) == 0 {
		return nil, ErrNotFound
	}
	return accountFrom(h), nil
}

// ByEmail reads the account of realm with e-mail email.
func (a *Accounts) ByEmail(ctx context.Context, realm Realm, email string) (*Account, error) {
	id, err := a.idByEmail(ctx, realm, email)
	if err != nil {
		return nil, err
	}
	return a.Get(ctx, id)
}

func (a *Accounts) idByEmail(ctx context.Context, realm Realm, email string) (string, error) {
	e, ok := normEmail(email)
	if !ok {
		return "", ErrNotFound
	}
	id, err := a.rdb.Get(ctx, emailKey(realm, e)).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("find account: %w", err)
	}
	return id, nil
}

// List reads a merchant's users (realm merchant) or every operator.
func (a *Accounts) List(ctx context.Context, realm Realm, appid string) ([]*Account, error) {
	ids, err := a.rdb.SMembers(ctx, membersKey(realm, appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	out := make([]*Account, 0, len(ids))
	for _, id := range ids {
		acct, err := a.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, acct)
	}
	return out, nil
}

func accountFrom(h map[string]string) *Account {
	var created time.Time
	if ms, err := parseInt(h["created"]); err == nil {
		created = time.UnixMilli(ms).UTC()
	}
	return &Account{ID: h["id"], Realm: Realm(h["realm"]), AppID: h["appid"], Email: h["email"], Role: Role(h["role"]),
		Disabled: h["disabled"] == "1", CreatedAt: created, PasswordSet: h["pw"] != "", TOTP: h["totp"] != "",
		SecondFactorLocked: isLocked(h["sfLocked"])}
}

// entry is an audit entry of actor's action on target.
func (a *Accounts) entry(actor Actor, action, target, appid string, details map[string]string) audit.Entry {
	return audit.Entry{At: a.now(), ActorID: actor.ID, ActorEmail: actor.Email, Realm: actor.Realm, Role: string(actor.Role),
		Action: action, Target: target, AppID: appid, Source: actor.Source, Details: details}
}

// run runs an account script with its audit entry appended to args.
func (a *Accounts) run(ctx context.Context, s *redis.Script, keys []string, args []any, e audit.Entry) (any, error) {
	full, err := audit.ScriptArgs(args, e)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(ctx, a.rdb, keys, full...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%s: %w", e.Action, err)
	}
	return res, nil
}

func domain(kind platform.Kind, msg string, err error) error {
	return &platform.Error{Kind: kind, Msg: msg, Err: err}
}
