package operator

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Adjustment is one manual adjustment: a request awaiting a second admin,
// or one decided (posted, rejected, refused).
type Adjustment struct {
	ID, AppID, Currency, Bucket, Reason string
	Amount                              schema.Amount // signed: a credit is positive
	State                               string
	Maker, Checker                      string // By(actor) of who made and who decided
	Note                                string // a rejection's reason, a refusal's cause
	Created, Decided                    time.Time
	Entry                               string // the journal entry, once posted
	makerKey, checkerKey                string
}

// Credit says whether a is a credit (for the pages).
func (a Adjustment) Credit() bool { return a.Amount > 0 }

func (a Adjustment) fields() map[string]any {
	f := map[string]any{"appid": a.AppID, "cur": a.Currency, "bucket": a.Bucket, "reason": a.Reason,
		"amt": int64(a.Amount), "state": a.State, "maker": a.Maker, "mkey": a.makerKey, "at": a.Created.UnixMilli()}
	if a.State != AdjPending {
		f["checker"], f["ckey"], f["note"], f["dat"], f["entry"] = a.Checker, a.checkerKey, a.Note, a.Decided.UnixMilli(), a.Entry
	}
	return f
}

func adjustmentFrom(id string, h map[string]string) Adjustment {
	amt, _ := strconv.ParseInt(h["amt"], 10, 64)
	ms := func(k string) time.Time {
		n, _ := strconv.ParseInt(h[k], 10, 64)
		if n == 0 {
			return time.Time{}
		}
		return time.UnixMilli(n).UTC()
	}
	return Adjustment{ID: id, AppID: h["appid"], Currency: h["cur"], Bucket: h["bucket"], Reason: h["reason"],
		Amount: schema.Amount(amt), State: h["state"], Maker: h["maker"], Checker: h["checker"], Note: h["note"],
		Created: ms("at"), Decided: ms("dat"), Entry: h["entry"], makerKey: h["mkey"], checkerKey: h["ckey"]}
}

// shardOf is the shard an adjustment lives on: its merchant's home.
func shardOf(id string) (schema.Shard, string, bool) {
	appid, _, ok := strings.Cut(id, "-")
	if !ok || appid == "" || !validAdjID(id) {
		return 0, "", false
	}
	return schema.HomeShard(appid), appid, true
}

func validAdjID(id string) bool {
	if len(id) > 80 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// saveRequest stores a pending request and its audit entry in one MULTI
// on the merchant's home shard.
func (m *Money) saveRequest(ctx context.Context, a Adjustment, e audit.Entry) error {
	vals, err := audit.Values(e)
	if err != nil {
		return err
	}
	s := schema.HomeShard(a.AppID)
	_, err = m.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.AdjustmentKey(s, a.ID), a.fields())
		p.ZAdd(ctx, schema.AdjustmentsPendingKey(s), redis.Z{Score: float64(a.Created.UnixMilli()), Member: a.ID})
		p.ZAdd(ctx, schema.AdjustmentsKey(s), redis.Z{Score: float64(a.Created.UnixMilli()), Member: a.ID})
		p.XAdd(ctx, &redis.XAddArgs{Stream: schema.AuditKey(s.Tag()), Values: vals})
		return nil
	})
	if err != nil {
		return fmt.Errorf("save adjustment request %s: %w", a.ID, err)
	}
	return nil
}

// saveDecided stores a decided adjustment's record, kept cfg.Keep; the
// list forgets what is older.
func (m *Money) saveDecided(ctx context.Context, a Adjustment) error {
	s := schema.HomeShard(a.AppID)
	k := schema.AdjustmentKey(s, a.ID)
	_, err := m.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, a.fields())
		p.Expire(ctx, k, m.cfg.Keep)
		p.ZRem(ctx, schema.AdjustmentsPendingKey(s), a.ID)
		p.ZAdd(ctx, schema.AdjustmentsKey(s), redis.Z{Score: float64(a.Created.UnixMilli()), Member: a.ID})
		p.ZRemRangeByScore(ctx, schema.AdjustmentsKey(s), "-inf", "("+strconv.FormatInt(m.now().Add(-m.cfg.Keep).UnixMilli(), 10))
		return nil
	})
	if err != nil {
		return fmt.Errorf("save adjustment %s: %w", a.ID, err)
	}
	return nil
}

// load reads the adjustment id (a 404 when there is none).
func (m *Money) load(ctx context.Context, id string) (Adjustment, error) {
	s, _, ok := shardOf(id)
	if !ok {
		return Adjustment{}, platform.Errorf(platform.KindNotFound, "no such adjustment")
	}
	h, err := m.rdb.HGetAll(ctx, schema.AdjustmentKey(s, id)).Result()
	if err != nil {
		return Adjustment{}, fmt.Errorf("read adjustment %s: %w", id, err)
	}
	if len(h) == 0 {
		return Adjustment{}, platform.Errorf(platform.KindNotFound, "no such adjustment")
	}
	return adjustmentFrom(id, h), nil
}

// maxListed bounds how many ids one shard gives a listing.
const maxListed = 200

// Adjustments are the requests awaiting a decision (oldest first) and the
// last n adjustments decided or posted (newest first), of appid or ("")
// of every merchant.
func (m *Money) Adjustments(ctx context.Context, actor access.Actor, appid string, n int) (pending, recent []Adjustment, err error) {
	if err := allow(actor, access.PermMerchantsRead); err != nil {
		return nil, nil, err
	}
	shards := schema.AllShards()
	if appid != "" {
		shards = []schema.Shard{schema.HomeShard(appid)}
	}
	n = min(max(n, 1), maxListed)
	var all []Adjustment
	for _, s := range shards {
		ids, err := m.rdb.ZRevRange(ctx, schema.AdjustmentsKey(s), 0, maxListed-1).Result()
		if err != nil {
			return nil, nil, fmt.Errorf("list adjustments: %w", err)
		}
		more, err := m.pendingIDs(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		got, err := m.loadAll(ctx, s, append(ids, more...))
		if err != nil {
			return nil, nil, err
		}
		all = append(all, got...)
	}
	seen := map[string]bool{}
	for _, a := range all {
		if seen[a.ID] || (appid != "" && a.AppID != appid) {
			continue
		}
		seen[a.ID] = true
		if a.State == AdjPending {
			pending = append(pending, a)
		} else {
			recent = append(recent, a)
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Created.Before(pending[j].Created) })
	// Two adjustments made in the same millisecond keep the order their
	// postings reached the journal in.
	sort.SliceStable(recent, func(i, j int) bool {
		if !recent[i].Created.Equal(recent[j].Created) {
			return recent[i].Created.After(recent[j].Created)
		}
		return entryAfter(recent[i].Entry, recent[j].Entry)
	})
	return pending, recent[:min(n, len(recent))], nil
}

func (m *Money) pendingIDs(ctx context.Context, s schema.Shard) ([]string, error) {
	ids, err := m.rdb.ZRange(ctx, schema.AdjustmentsPendingKey(s), 0, maxListed-1).Result()
	if err != nil {
		return nil, fmt.Errorf("list adjustment requests: %w", err)
	}
	return ids, nil
}

func (m *Money) loadAll(ctx context.Context, s schema.Shard, ids []string) ([]Adjustment, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, schema.AdjustmentKey(s, id))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read adjustments: %w", err)
	}
	out := make([]Adjustment, 0, len(ids))
	for i, c := range cmds {
		if h := c.Val(); len(h) > 0 {
			out = append(out, adjustmentFrom(ids[i], h))
		}
	}
	return out, nil
}

// entryAfter reports whether journal entry id a ("ms-seq", a stream id)
// came after b; one without an entry (a rejected request) sorts last of
// its millisecond.
func entryAfter(a, b string) bool {
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	if len(am) != len(bm) {
		return len(am) > len(bm)
	}
	if am != bm {
		return am > bm
	}
	if len(as) != len(bs) {
		return len(as) > len(bs)
	}
	return as > bs
}
