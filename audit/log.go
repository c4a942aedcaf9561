package audit

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Log appends entries of actions that are not one Redis script (a CLI
// command, a use case of several steps) to the {audit} stream.
type Log struct {
	rdb redis.UniversalClient
}

// NewLog wraps a Redis client.
func NewLog(rdb redis.UniversalClient) *Log { return &Log{rdb: rdb} }

// Append writes e durably (Redis's AOF) and returns its stream id. A caller
// appends before it reports the action done, and treats a failure here as
// the action's failure where it can still be refused.
func (l *Log) Append(ctx context.Context, e Entry) (string, error) {
	if err := e.Validate(); err != nil {
		return "", err
	}
	id, err := l.rdb.XAdd(ctx, &redis.XAddArgs{Stream: schema.AuditKey(schema.AuditTag), Values: e.values()}).Result()
	if err != nil {
		return "", fmt.Errorf("append audit entry %s: %w", e.Action, err)
	}
	return id, nil
}

// Read returns the last n entries of one audit stream, oldest first: for
// tools and tests that look at what was just written (the consoles search
// ClickHouse, where every stream is projected).
func Read(ctx context.Context, rdb redis.UniversalClient, stream string, n int64) ([]Row, error) {
	msgs, err := rdb.XRevRangeN(ctx, stream, "+", "-", n).Result()
	if err != nil {
		return nil, fmt.Errorf("read audit stream %s: %w", stream, err)
	}
	out := make([]Row, len(msgs))
	for i, m := range msgs {
		out[len(msgs)-1-i] = Row{ID: m.ID, Entry: decode(m.ID, m.Values)}
	}
	return out, nil
}
