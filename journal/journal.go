package journal

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

//go:embed post.lua
var postLua string

// postMain is the journal's own script after the library: the
// transaction is the script's whole KEYS and ARGV.
const postMain = "\nreturn journal_post(KEYS, ARGV, audit_hook)\n"

// Library is the journal's posting as Lua a command script prepends to its
// own text, so it can post a transaction in its own atomic step: it defines
// journal_post(keys, argv, hook) and journal_args(KEYS, ARGV, ko, ao),
// which cuts the transaction's keys and arguments (ScriptArgs) out of the
// script's after ko keys and ao arguments of its own. hook is a function
// called after a posting (function() end for none).
func Library() string { return postLua }

// Config is the journal's settings.
type Config struct {
	// Memory is how long a transaction's idempotency marker is kept. It
	// must outlive every replay that can still come: the event streams'
	// unacknowledged entries and the refunds of orders Redis still holds
	// (retention, 7 days by default), so a month is the default.
	Memory time.Duration
	Now    func() time.Time
}

// Defaults is the configuration of a deployment that sets nothing.
func Defaults() Config { return Config{Memory: 35 * 24 * time.Hour} }

func (c Config) withDefaults() Config {
	d := Defaults()
	if c.Memory == 0 {
		c.Memory = d.Memory
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Memory < 24*time.Hour {
		return fmt.Errorf("journal memory %s: at least 24h, or a replay posts twice", c.Memory)
	}
	return nil
}

// Journal posts transactions and reads balances.
type Journal struct {
	cfg  Config
	rdb  redis.UniversalClient
	post *redis.Script
	// postAudited also appends a person's audit entry in the same step.
	postAudited *redis.Script
	// batch posts many transactions of one home shard in one call.
	batch  *redis.Script
	log    *slog.Logger
	posted *prometheus.CounterVec
}

// New makes a Journal on rdb.
func New(cfg Config, rdb redis.UniversalClient, reg prometheus.Registerer, log *slog.Logger) (*Journal, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	j := &Journal{cfg: cfg, rdb: rdb, post: redis.NewScript("local function audit_hook() end\n" + postLua + postMain),
		postAudited: audit.Script("local function audit_hook() gw_audit(KEYS[7]) end\n" + postLua + postMain),
		batch:       redis.NewScript(batchLua), log: log,
		posted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gateway_journal_transactions_total",
			Help: "Journal transactions by kind and result (posted, replayed, refused).",
		}, []string{"kind", "result"})}
	if reg != nil {
		if err := reg.Register(j.posted); err != nil {
			return nil, fmt.Errorf("register journal metrics: %w", err)
		}
	}
	return j, nil
}

// Posting is one line of a transaction: Amount (signed, minor units) added
// to Account's balance in Currency.
type Posting struct {
	Account  string
	Currency string
	Amount   schema.Amount
}

// Due is a member added, in the transaction's step, to a sorted set of the
// merchant's home shard: a settlement move that falls due At.
type Due struct {
	Key    string
	At     time.Time
	Member string
}

// Tx is one journal transaction of one merchant.
type Tx struct {
	Key      string // idempotency key, "<kind>:<order|refund|payout id>"
	Kind     string
	AppID    string
	Ref      string // the order, refund or payout id
	Memo     string // a person's reason, for manual entries
	By       string // who, for manual entries
	At       time.Time
	Postings []Posting
	// AllowNegative lets the merchant's buckets go below zero (the
	// operator's setting for that merchant).
	AllowNegative bool
	// RecordRefusal keeps a refusal under Key, so a retry of the same
	// transaction is refused too and can never post later.
	RecordRefusal bool
	// Requires names a transaction that must have been posted (a reversal
	// reverses only what was done).
	Requires string
	// Permanent keeps the marker for ever (opening entries).
	Permanent bool
	Due       *Due
}

// Outcome says what Post did.
type Outcome int

const (
	Posted   Outcome = iota + 1 // posted now
	Replayed                    // posted before under the same key: nothing moved
	Refused                     // the merchant's balance fell short: nothing moved
	Missing                     // Requires was never posted: nothing moved
)

// Result is Post's answer.
type Result struct {
	Outcome Outcome
	EntryID string        // the journal entry, when posted (now or before)
	Short   string        // the account that fell short, when refused
	Balance schema.Amount // its balance then
}

// ErrInvalid marks a transaction that can never be posted.
var ErrInvalid = errors.New("invalid journal transaction")

// Post posts tx once. A transaction whose key was posted before moves
// nothing and says Replayed; one that would take a merchant's bucket below
// zero moves nothing and says Refused.
func (j *Journal) Post(ctx context.Context, tx Tx) (Result, error) {
	return j.PostAudited(ctx, tx, nil)
}

// PostAudited is Post of a person's entry (a top-up, an adjustment):
// entry, when not nil, is appended to the audit log in the same step, so
// the movement and who made it are never apart.
func (j *Journal) PostAudited(ctx context.Context, tx Tx, entry *audit.Entry) (Result, error) {
	if err := tx.check(); err != nil {
		return Result{}, err
	}
	s := schema.HomeShard(tx.AppID)
	keys, args := j.scriptArgs(s, tx)
	script := j.post
	if entry != nil {
		full, err := audit.ScriptArgs(args, *entry)
		if err != nil {
			return Result{}, err
		}
		script, args, keys = j.postAudited, full, append(keys, schema.AuditKey(s.Tag()))
	}
	res, err := script.Run(ctx, j.rdb, keys, args...).Slice()
	if err != nil {
		return Result{}, fmt.Errorf("post %s: %w", tx.Key, err)
	}
	r := decodeResult(res)
	j.posted.WithLabelValues(tx.Kind, r.Outcome.String()).Inc()
	return r, nil
}

// Posted tells whether the transaction key of appid's was posted (a
// recorded refusal is not).
func (j *Journal) Posted(ctx context.Context, appid, key string) (bool, error) {
	v, err := j.rdb.Get(ctx, schema.JournalTxKey(schema.HomeShard(appid), key)).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read journal key %s: %w", key, err)
	}
	return v != "!", nil
}

// ScriptArgs are tx's keys and arguments for a command script that posts
// it through Library: 6 keys (all on the merchant's home shard) and 11 + 3
// per posting arguments, to put where the script's journal_args cuts them.
func (j *Journal) ScriptArgs(tx Tx) ([]string, []any, error) {
	if err := tx.check(); err != nil {
		return nil, nil, err
	}
	keys, args := j.scriptArgs(schema.HomeShard(tx.AppID), tx)
	return keys, args, nil
}

// DecodeResult reads a journal_post answer a command script passed back as
// res (the script's own codes aside): what Post would have said.
func DecodeResult(res []any) Result { return decodeResult(res) }

func (j *Journal) scriptArgs(s schema.Shard, tx Tx) ([]string, []any) {
	req, due := schema.JournalTxKey(s, tx.Key), schema.SettleDueKey(s)
	flags := ""
	if tx.AllowNegative {
		flags += "n"
	}
	if tx.RecordRefusal {
		flags += "r"
	}
	if tx.Requires != "" {
		flags, req = flags+"q", schema.JournalTxKey(s, tx.Requires)
	}
	score, member := int64(0), ""
	if tx.Due != nil {
		flags, due, score, member = flags+"d", tx.Due.Key, tx.Due.At.UnixMilli(), tx.Due.Member
	}
	ttl := int64(j.cfg.Memory / time.Second)
	if tx.Permanent {
		ttl = 0
	}
	at := tx.At
	if at.IsZero() {
		at = j.cfg.Now()
	}
	keys := []string{schema.JournalTxKey(s, tx.Key), schema.AccountsKey(tx.AppID), schema.PlatformAccountsKey(s),
		schema.JournalKey(s), req, due}
	args := make([]any, 0, 11+3*len(tx.Postings))
	args = append(args, ttl, at.UnixMilli(), tx.Kind, tx.AppID, tx.Ref, tx.Memo, tx.By, flags, score, member, len(tx.Postings))
	for _, p := range tx.Postings {
		args = append(args, p.Account, p.Currency, int64(p.Amount))
	}
	return keys, args
}

func decodeResult(res []any) Result {
	code, _ := res[0].(int64)
	str := func(i int) string {
		if i < len(res) {
			s, _ := res[i].(string)
			return s
		}
		return ""
	}
	switch code {
	case 1:
		return Result{Outcome: Posted, EntryID: str(1)}
	case 2:
		return Result{Outcome: Replayed, EntryID: str(1)}
	case 3:
		return Result{Outcome: Missing}
	case 4:
		return Result{Outcome: Refused}
	}
	bal, _ := res[2].(int64)
	return Result{Outcome: Refused, Short: str(1), Balance: schema.Amount(bal)}
}

func (o Outcome) String() string {
	switch o {
	case Posted:
		return "posted"
	case Replayed:
		return "replayed"
	case Refused:
		return "refused"
	case Missing:
		return "missing"
	}
	return "unknown"
}

// check refuses a transaction that could never be right: no key, an
// account not the merchant's or malformed, a zero line, postings that do
// not sum to zero in each currency.
func (tx Tx) check() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%w %s: %s", ErrInvalid, tx.Key, fmt.Sprintf(f, a...))
	}
	switch {
	case !validName(tx.Key) || len(tx.Key) > 150:
		return bad("the key must be 1 to 150 characters of A-Z a-z 0-9 : _ - .")
	case !validName(tx.Kind) || !validName(tx.AppID):
		return bad("kind and appid are required")
	case len(tx.Postings) == 0:
		return bad("no postings")
	case tx.Requires != "" && !validName(tx.Requires):
		return bad("requires %q", tx.Requires)
	}
	sums := map[string]schema.Amount{}
	for _, p := range tx.Postings {
		if err := checkAccount(tx.AppID, p.Account); err != nil {
			return bad("%v", err)
		}
		if !validCurrency(p.Currency) {
			return bad("currency %q", p.Currency)
		}
		if p.Amount == 0 {
			return bad("a zero posting to %s", p.Account)
		}
		if p.Account == Spend(tx.AppID) && p.Amount > 0 {
			return bad("spend takes, never gives")
		}
		sums[p.Currency] += p.Amount
	}
	for cur, s := range sums {
		if s != 0 {
			return bad("postings in %s sum to %s", cur, strconv.FormatInt(int64(s), 10))
		}
	}
	return nil
}

func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
