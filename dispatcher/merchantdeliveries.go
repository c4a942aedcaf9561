package dispatcher

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// MerchantDeliveries is one merchant's view of its webhook deliveries, for
// the merchant console: every delivery (or what is pending, failing or
// dead) with what we sent and its last attempts; resends; the success rate
// of the last day. It reads the per-merchant indexes and counters the
// dispatcher's scripts keep (schema.WebhookMerchantAllKey,
// schema.WebhookMerchantKey, schema.WebhookRateKey), so no shard is ever
// scanned, and every call is bound to the one appid it is given: a
// delivery of another merchant is never listed, resent or counted.
type MerchantDeliveries struct {
	rdb   redis.UniversalClient
	store *store
	now   func() time.Time
}

// NewMerchantDeliveries reads the deliveries in rdb.
func NewMerchantDeliveries(rdb redis.UniversalClient) (*MerchantDeliveries, error) {
	if rdb == nil {
		return nil, errors.New("merchant deliveries: redis is required")
	}
	return &MerchantDeliveries{rdb: rdb, store: newStore(rdb, Defaults()), now: time.Now}, nil
}

// Console states: a pending delivery no attempt has failed yet, a pending
// one that has failed at least once, a dead-lettered one and an
// acknowledged one.
const (
	ViewPending   = "pending"
	ViewFailing   = "failing"
	ViewDead      = "dead"
	ViewDelivered = "delivered"
)

// DeliveryRow is one delivery as the Webhooks page lists it.
type DeliveryRow struct {
	DeliveryID   string    // the order id, or the refund id of a refund's webhook
	PaymentID    string    // the order
	RefundID     string    // set for a refund's webhook
	State        string    // ViewPending, ViewFailing or ViewDead
	URL          string    // the notify_url
	At           time.Time // when the event happened (paid, refund ended)
	Automatic    int       // automatic attempts made
	NextDue      time.Time // pending and failing: when the next attempt starts
	InFlight     bool
	ResendQueued bool
	LastAt       string // the last attempt's start (RFC 3339), "" when none
	LastStatus   int    // its HTTP status, 0 when no answer came
	LastError    string // why it failed, as the merchant may read it
	// Sent is the body we post without its sign and sign_type, which each
	// attempt adds with the key of that moment (form-encoded, as sent).
	Sent string
	// Attempts are the last ShownAttempts attempts, oldest first: when,
	// how long, the status and the answer's first bytes.
	Attempts []schema.WebhookAttempt
}

// Last is the last attempt shown, nil when none was made.
func (r DeliveryRow) Last() *schema.WebhookAttempt {
	if len(r.Attempts) == 0 {
		return nil
	}
	return &r.Attempts[len(r.Attempts)-1]
}

// ShownAttempts is how many of a delivery's last attempts a row carries.
const ShownAttempts = 10

// ListFilter selects rows: State "" for every delivery, one of the View
// states for those alone; Query a payment id or clientOrderId for that
// order's deliveries (its paid webhook and its refunds'); Before
// (exclusive) to page back in time, Limit default 50, at most MaxRows.
type ListFilter struct {
	State  string
	Query  string
	Before time.Time
	Limit  int
}

// MaxRows bounds one page of List.
const MaxRows = 200

// candidatesPerRow is how many index entries per wanted row each shard
// offers: the index holds only deliveries not delivered, so a state filter
// rarely discards most of them.
const candidatesPerRow = 4

// candidate is one index entry: a delivery on a shard and its event time.
type candidate struct {
	shard schema.Shard
	id    string
	at    int64
}

// List returns appid's deliveries, newest event first, with what was sent
// and the last attempts of each. A state other than delivered reads the
// index of deliveries not delivered, every other listing the history.
func (m *MerchantDeliveries) List(ctx context.Context, appid string, f ListFilter) ([]DeliveryRow, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	f.Limit = min(f.Limit, MaxRows)
	if f.State != "" && f.State != ViewPending && f.State != ViewFailing && f.State != ViewDead && f.State != ViewDelivered {
		return nil, fmt.Errorf("state %q: want pending, failing, dead or delivered", f.State)
	}
	if f.Query != "" {
		return m.search(ctx, appid, f)
	}
	max := "+inf"
	if !f.Before.IsZero() {
		max = "(" + strconv.FormatInt(f.Before.UnixMilli(), 10)
	}
	history := f.State == "" || f.State == ViewDelivered
	perShard := f.Limit * candidatesPerRow
	if f.State == "" {
		perShard = f.Limit // every entry is a row, unless expired
	}
	cands, err := m.candidates(ctx, appid, "-inf", max, perShard, true, history)
	if err != nil {
		return nil, err
	}
	out := make([]DeliveryRow, 0, f.Limit)
	for start := 0; start < len(cands) && len(out) < f.Limit; start += f.Limit {
		rows, err := m.rows(ctx, appid, cands[start:min(start+f.Limit, len(cands))], history)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if (f.State == "" || r.State == f.State) && len(out) < f.Limit {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// candidates reads up to perShard index entries of every shard scored in
// [min, max], merged newest first (or oldest first when newest is false),
// from the history when history is set, else from the deliveries not
// delivered.
func (m *MerchantDeliveries) candidates(ctx context.Context, appid, min, max string, perShard int, newest, history bool) ([]candidate, error) {
	shards := schema.AllShards()
	cmds := make([]*redis.ZSliceCmd, len(shards))
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, sh := range shards {
			by := &redis.ZRangeBy{Min: min, Max: max, Count: int64(perShard)}
			key := schema.WebhookMerchantKey(sh, appid)
			if history {
				key = schema.WebhookMerchantAllKey(sh, appid)
			}
			if newest {
				cmds[i] = p.ZRevRangeByScoreWithScores(ctx, key, by)
			} else {
				cmds[i] = p.ZRangeByScoreWithScores(ctx, key, by)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("list webhook deliveries of %s: %w", appid, err)
	}
	var out []candidate
	for i, c := range cmds {
		for _, z := range c.Val() {
			id, _ := z.Member.(string)
			out = append(out, candidate{shard: shards[i], id: id, at: int64(z.Score)})
		}
	}
	slices.SortFunc(out, func(a, b candidate) int {
		if newest {
			a, b = b, a
		}
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.id, b.id))
	})
	return out, nil
}

// rows reads the delivery hash and last attempts of each candidate, in one
// pipeline. An entry whose delivery has expired, was delivered meanwhile
// (unless delivered ones are wanted), or (should the index ever disagree)
// is another merchant's, yields no row; expired ones leave the index.
func (m *MerchantDeliveries) rows(ctx context.Context, appid string, cands []candidate, delivered bool) ([]DeliveryRow, error) {
	hashes := make([]*redis.SliceCmd, len(cands))
	lasts := make([]*redis.StringSliceCmd, len(cands))
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, c := range cands {
			hashes[i] = p.HMGet(ctx, schema.WebhookKey(c.shard, c.id), "st", "appid", "url", "n", "due", "lease", "man", "p", "paid")
			lasts[i] = p.LRange(ctx, schema.WebhookLogKey(c.shard, c.id), -ShownAttempts, -1)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read webhook deliveries of %s: %w", appid, err)
	}
	now := m.now()
	var out []DeliveryRow
	var gone []candidate
	for i, c := range cands {
		v := hashes[i].Val()
		str := func(k int) string { s, _ := v[k].(string); return s }
		if str(0) == "" {
			gone = append(gone, c)
			continue
		}
		if str(1) != appid || (str(0) == StateDelivered && !delivered) {
			continue
		}
		if c.at == 0 {
			c.at, _ = strconv.ParseInt(str(8), 10, 64)
		}
		out = append(out, rowOf(c, str, lasts[i].Val(), now))
	}
	m.prune(ctx, appid, gone)
	return out, nil
}

// rowOf builds a row from the delivery hash fields (st, appid, url, n, due,
// lease, man, p in that order) and the last attempt records.
func rowOf(c candidate, str func(int) string, lasts []string, now time.Time) DeliveryRow {
	r := DeliveryRow{DeliveryID: c.id, PaymentID: c.id, URL: str(2), At: time.UnixMilli(c.at).UTC(), ResendQueued: str(6) != ""}
	if schema.IsRefundID(c.id) {
		r.RefundID, r.PaymentID = c.id, paymentOf(str(7))
	}
	r.Sent, _ = storedForm(str(7))
	r.Automatic, _ = strconv.Atoi(str(3))
	for _, raw := range lasts {
		var a schema.WebhookAttempt
		if json.Unmarshal([]byte(raw), &a) == nil {
			r.Attempts = append(r.Attempts, a)
		}
	}
	if n := len(r.Attempts); n > 0 {
		a := r.Attempts[n-1]
		r.LastAt, r.LastStatus, r.LastError = a.At, a.Status, a.Error
	}
	switch {
	case str(0) == StateDelivered || str(6) == StateDelivered:
		// A resend of a delivered one goes back there unless it fails.
		r.State = ViewDelivered
	case str(0) == StateDead || str(6) == StateDead:
		// A dead one with a resend queued stays dead until that attempt
		// is recorded: it goes back there unless acknowledged.
		r.State = ViewDead
	case r.Automatic > 0 || r.LastError != "":
		r.State = ViewFailing
	default:
		r.State = ViewPending
	}
	if ms, err := strconv.ParseInt(str(4), 10, 64); err == nil && str(0) == StatePending {
		r.NextDue = time.UnixMilli(ms).UTC()
		r.InFlight = str(5) != "" && r.NextDue.After(now)
	}
	return r
}

// paymentOf is the order a refund delivery's stored parameters name.
func paymentOf(stored string) string {
	form, err := storedForm(stored)
	if err != nil {
		return ""
	}
	v, err := url.ParseQuery(form)
	if err != nil {
		return ""
	}
	return v.Get("paymentId")
}

// prune drops index entries whose delivery has expired. It is best effort:
// a failure leaves them for the next reader or the schedule's own pruning.
func (m *MerchantDeliveries) prune(ctx context.Context, appid string, gone []candidate) {
	if len(gone) == 0 {
		return
	}
	_, _ = m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range gone {
			p.ZRem(ctx, schema.WebhookMerchantKey(c.shard, appid), c.id)
		}
		return nil
	})
}
