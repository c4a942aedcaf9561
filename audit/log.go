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
