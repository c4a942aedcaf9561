package journal

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Entry is one posted transaction as the journal stream holds it.
type Entry struct {
	ID       string // the stream id
	Key      string
	Kind     string
	AppID    string
	Ref      string
	Memo     string
	By       string
	At       time.Time
	Postings []Posting
}

// DecodeEntry reads one journal stream entry; the projection and the audit
// refuse an entry it cannot read.
func DecodeEntry(id string, v map[string]any) (Entry, error) {
	str := func(k string) string { s, _ := v[k].(string); return s }
	e := Entry{ID: id, Key: str("tx"), Kind: str("k"), AppID: str("m"), Ref: str("ref"), Memo: str("memo"), By: str("by")}
	ms, err := strconv.ParseInt(str("at"), 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("journal entry %s: time %q", id, str("at"))
	}
	e.At = time.UnixMilli(ms).UTC()
	for _, line := range strings.Split(str("p"), ";") {
		parts := strings.Split(line, ",")
		if len(parts) != 3 {
			return Entry{}, fmt.Errorf("journal entry %s: posting %q", id, line)
		}
		n, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return Entry{}, fmt.Errorf("journal entry %s: amount %q", id, parts[2])
		}
		e.Postings = append(e.Postings, Posting{Account: parts[0], Currency: parts[1], Amount: schema.Amount(n)})
	}
	return e, nil
}

// Entries reads up to count entries of shard s's journal after the entry
// after ("" or "0" for the first).
func (j *Journal) Entries(ctx context.Context, s schema.Shard, after string, count int64) ([]Entry, error) {
	lo := "-"
	if after != "" && after != "0" {
		lo = "(" + after
	}
	msgs, err := j.rdb.XRangeN(ctx, schema.JournalKey(s), lo, "+", count).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read journal of shard %s: %w", s.Tag(), err)
	}
	out := make([]Entry, 0, len(msgs))
	for _, m := range msgs {
		e, err := DecodeEntry(m.ID, m.Values)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
