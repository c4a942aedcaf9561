package merchant

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ErrNotFound is returned for an appid that has no account.
var ErrNotFound = errors.New("merchant not found")

// firstAppID keeps appids at four digits or more, like the ones merchants know.
const firstAppID = 1000

// Store reads and changes accounts in Redis. Every change bumps the shared
// version key so that every process's Directory drops its cache.
type Store struct {
	rdb redis.UniversalClient
	now func() time.Time
	pw  *PasswordHasher
	// entry, when set (Audited), is appended to the {merchants} audit
	// stream in the same transaction as every change this Store makes.
	entry *audit.Entry
}

// NewStore wraps a Redis client.
func NewStore(rdb redis.UniversalClient) *Store {
	return &Store{rdb: rdb, now: time.Now, pw: NewPasswordHasher()}
}

// WithClock makes s time what it writes (account creation, key and secret
// grace periods, balance movements) by now, a process's configured clock.
func (s *Store) WithClock(now platform.Clock) *Store {
	s.now = now.Now
	return s
}

// Audited is s making each change together with entry: the console's
// rotations and settings are one MULTI on {merchants} with their audit
// entry (schema.AuditStreams reads that stream), never one without the
// other.
func (s *Store) Audited(entry audit.Entry) *Store {
	c := *s
	c.entry = &entry
	return &c
}

// merchantsTag is the hash tag of every account key (schema.MerchantKey).
const merchantsTag = "{merchants}"

// NewAccount describes an account to create.
type NewAccount struct {
	Name     string
	Callback string
	Sandbox  bool
	// PayerOnly makes an account that pays with its balance and does not
	// sell (Account.PayerOnly).
	PayerOnly bool
}

// Create makes an account with fresh credentials.
func (s *Store) Create(ctx context.Context, na NewAccount) (*Account, error) {
	if na.Name == "" {
		return nil, errors.New("merchant name is empty")
	}
	if err := CheckCallback(na.Callback); err != nil {
		return nil, err
	}
	seq, err := s.rdb.Incr(ctx, schema.MerchantSeqKey).Result()
	if err != nil {
		return nil, fmt.Errorf("number new merchant: %w", err)
	}
	a := &Account{
		AppID: strconv.FormatInt(firstAppID+seq, 10), Name: na.Name, APIKey: newAPIKey(),
		QueryKey: uuid.NewString(), WebhookSecret: NewWebhookSecret(), Callback: na.Callback, Sandbox: na.Sandbox, CreatedAt: s.now().UTC(),
		PayerOnly: na.PayerOnly,
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.MerchantKey(a.AppID), a.fields())
		p.SAdd(ctx, schema.MerchantsKey, a.AppID)
		p.Incr(ctx, schema.MerchantsVersionKey)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("save merchant %s: %w", a.AppID, err)
	}
	return a, nil
}

// newAPIKey is 52 base32 characters, 256 random bits: SPEC.md asks for a
// secret that signs, and one that cannot be guessed or searched.
func newAPIKey() string { return rand.Text() + rand.Text() }

// Get reads one account.
func (s *Store) Get(ctx context.Context, appid string) (*Account, error) {
	h, err := s.rdb.HGetAll(ctx, schema.MerchantKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read merchant %s: %w", appid, err)
	}
	if len(h) == 0 {
		return nil, ErrNotFound
	}
	return accountFrom(h), nil
}

// List reads every account, ordered by appid.
func (s *Store) List(ctx context.Context) ([]*Account, error) {
	ids, err := s.rdb.SMembers(ctx, schema.MerchantsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("list merchants: %w", err)
	}
	sort.Slice(ids, func(i, j int) bool {
		if len(ids[i]) != len(ids[j]) {
			return len(ids[i]) < len(ids[j])
		}
		return ids[i] < ids[j]
	})
	out := make([]*Account, 0, len(ids))
	for _, id := range ids {
		a, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// MarkPayerOnly marks an existing account as one that only pays with its
// balance (an account made before the mark was kept).
func (s *Store) MarkPayerOnly(ctx context.Context, appid string) error {
	_, err := s.update(ctx, appid, map[string]any{fPayer: "1"})
	return err
}

// update changes fields of an existing account and announces the change.
func (s *Store) update(ctx context.Context, appid string, fields map[string]any) (*Account, error) {
	n, err := s.rdb.Exists(ctx, schema.MerchantKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read merchant %s: %w", appid, err)
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	var entry []any
	if s.entry != nil {
		if entry, err = audit.Values(*s.entry); err != nil {
			return nil, err
		}
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.MerchantKey(appid), fields)
		p.Incr(ctx, schema.MerchantsVersionKey)
		if entry != nil {
			p.XAdd(ctx, &redis.XAddArgs{Stream: schema.AuditKey(merchantsTag), Values: entry})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update merchant %s: %w", appid, err)
	}
	return s.Get(ctx, appid)
}

// SetDisabled disables or enables an account.
func (s *Store) SetDisabled(ctx context.Context, appid string, disabled bool) (*Account, error) {
	return s.update(ctx, appid, map[string]any{fDisabled: flag(disabled)})
}

// SetName changes the display name payers see on the payment pages.
func (s *Store) SetName(ctx context.Context, appid, name string) (*Account, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLen || strings.ContainsFunc(name, unicode.IsControl) {
		return nil, fmt.Errorf("merchant name must be 1 to %d characters without control characters", MaxNameLen)
	}
	return s.update(ctx, appid, map[string]any{fName: name})
}

// MaxNameLen bounds a display name: the pages show it in one line.
const MaxNameLen = 80

// SetCallback sets the default webhook URL; empty clears it.
func (s *Store) SetCallback(ctx context.Context, appid, callback string) (*Account, error) {
	if err := CheckCallback(callback); err != nil {
		return nil, err
	}
	return s.update(ctx, appid, map[string]any{fCallback: callback})
}

// RotateKey issues a new API key; the old one keeps verifying for grace so
// that a merchant can roll its servers over without failed creates.
func (s *Store) RotateKey(ctx context.Context, appid string, grace time.Duration) (*Account, error) {
	old, err := s.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	f := map[string]any{fAPIKey: newAPIKey(), fPrevKey: "", fPrevTill: "0", fKeyAt: ms(s.now())}
	if grace > 0 {
		f[fPrevKey] = old.APIKey
		f[fPrevTill] = ms(s.now().Add(grace))
	}
	return s.update(ctx, appid, f)
}

// RotateQueryKeyGrace issues a new query key; the old one keeps reading
// for grace, like the API key's rotation, so a merchant's status polls do
// not fail while its servers roll over to the new key. A grace of 0 stops
// the old one (and any earlier one still in a grace period) at once: for a
// key that leaked.
func (s *Store) RotateQueryKeyGrace(ctx context.Context, appid string, grace time.Duration) (*Account, error) {
	old, err := s.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	f := map[string]any{fQueryKey: uuid.NewString(), fQPrev: "", fQTill: "0", fQKeyAt: ms(s.now())}
	if grace > 0 {
		f[fQPrev] = old.QueryKey
		f[fQTill] = ms(s.now().Add(grace))
	}
	return s.update(ctx, appid, f)
}

// LimitOverrides are the rate limit overrides SetLimits changes, each as
// the CLI takes it: "" leaves one as it is and "default" removes it.
type LimitOverrides struct {
	Create, Query, Report string
}

// SetLimits sets the merchant's rate limit overrides.
func (s *Store) SetLimits(ctx context.Context, appid string, o LimitOverrides) (*Account, error) {
	f := map[string]any{}
	for _, l := range []struct{ field, v string }{{fLimitC, o.Create}, {fLimitQ, o.Query}, {fLimitR, o.Report}} {
		switch l.v {
		case "":
		case "default":
			f[l.field] = ""
		default:
			parsed, err := platform.ParseLimit(l.v)
			if err != nil {
				return nil, err
			}
			f[l.field] = parsed.String()
		}
	}
	if len(f) == 0 {
		return s.Get(ctx, appid)
	}
	return s.update(ctx, appid, f)
}

// CheckCallback accepts an empty URL or an absolute http(s) URL in valid
// UTF-8 (a console form or CLI flag is refused a byte string no receiver
// could be named by).
func CheckCallback(u string) error {
	if u == "" {
		return nil
	}
	if !utf8.ValidString(u) {
		return errors.New("callback: must be valid UTF-8")
	}
	if err := schema.CheckURL(u); err != nil {
		return fmt.Errorf("callback: %w", err)
	}
	return nil
}
