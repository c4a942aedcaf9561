package recon

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Raised is a finding as the exceptions queue keeps it.
type Raised struct {
	ID       string    `json:"id"`
	Kind     Kind      `json:"kind"`
	Channel  string    `json:"channel"`
	Day      string    `json:"day"`
	OrderID  string    `json:"orderId,omitempty"`
	AppID    string    `json:"appid,omitempty"`
	Ref      string    `json:"ref,omitempty"`
	Evidence string    `json:"evidence"`
	At       time.Time `json:"at"`
}

// RedisQueue keeps findings in Redis for the operators' queue.
type RedisQueue struct {
	rdb redis.UniversalClient
	now func() time.Time
}

// NewRedisQueue keeps findings in rdb.
func NewRedisQueue(rdb redis.UniversalClient) *RedisQueue {
	return &RedisQueue{rdb: rdb, now: time.Now}
}

// raised is f with its id: the same difference found again (the same file
// twice, or a corrected file that still has it) is the same entry.
func raised(channel string, day time.Time, f Finding) Raised {
	r := Raised{Kind: f.Kind, Channel: channel, Day: day.Format(time.DateOnly), Evidence: f.Evidence()}
	if f.Payment != nil {
		r.OrderID, r.AppID, r.Ref = f.Payment.OrderID, f.Payment.AppID, f.Payment.ProviderRef
	}
	who := r.OrderID
	if f.Line != nil {
		r.Ref = f.Line.ProviderRef
		if who == "" {
			who = f.Line.OrderID
		}
	}
	r.ID = string(f.Kind) + ":" + channel + ":" + r.Day + ":" + r.Ref + ":" + who
	if f.Kind == Duplicate {
		r.ID += ":" + strconv.Itoa(f.Line.Row)
	}
	return r
}

// Raise adds each finding not raised before.
func (q *RedisQueue) Raise(ctx context.Context, channel string, day time.Time, fs []Finding) error {
	const batch = 1000
	now := q.now().UTC()
	for i := 0; i < len(fs); i += batch {
		pipe := q.rdb.Pipeline()
		for _, f := range fs[i:min(i+batch, len(fs))] {
			r := raised(channel, day, f)
			r.At = now
			b, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("encode finding: %w", err)
			}
			pipe.HSetNX(ctx, schema.ReconFindingKey, r.ID, b)
			pipe.ZAddNX(ctx, schema.ReconFindingsKey, redis.Z{Score: float64(now.UnixMilli()), Member: r.ID})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("keep findings: %w", err)
		}
	}
	return nil
}

// Imported records an import's key; false when it was recorded before.
func (q *RedisQueue) Imported(ctx context.Context, key string) (bool, error) {
	n, err := q.rdb.SAdd(ctx, schema.ReconImportsKey, key).Result()
	if err != nil {
		return false, fmt.Errorf("record import: %w", err)
	}
	return n == 1, nil
}

// Newest reads the newest n findings.
func (q *RedisQueue) Newest(ctx context.Context, n int64) ([]Raised, error) {
	ids, err := q.rdb.ZRevRange(ctx, schema.ReconFindingsKey, 0, n-1).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	vals, err := q.rdb.HMGet(ctx, schema.ReconFindingKey, ids...).Result()
	if err != nil {
		return nil, err
	}
	out := make([]Raised, 0, len(vals))
	for _, v := range vals {
		s, _ := v.(string)
		var r Raised
		if json.Unmarshal([]byte(s), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}
