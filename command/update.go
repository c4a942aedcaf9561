package command

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

//go:embed scripts/update.lua
var updateLua string

var updateScript = redis.NewScript(updateLua)

// Update changes order id's details, with a changed event, if the order is
// in one of statuses and its guard field still holds want; applied=false
// means another request changed it first (nothing was written).
func (s *Store) Update(ctx context.Context, id string, statuses []schema.Status, guard, want string, at time.Time, fields ...string) (applied bool, err error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return false, orderNotFound(id)
	}
	in := make([]byte, 0, len(statuses))
	for _, st := range statuses {
		in = strconv.AppendInt(in, int64(st), 10)
	}
	args := make([]any, 0, 5+len(fields))
	args = append(args, string(in), guard, want, string(schema.EventChanged), at.UnixMilli())
	for _, f := range fields {
		args = append(args, f)
	}
	res, err := updateScript.Run(ctx, s.rdb, []string{schema.OrderKey(shard, id), schema.EventsKey(shard)}, args...).Int64Slice()
	if err != nil {
		return false, fmt.Errorf("update order %s: %w", id, err)
	}
	if res[0] == -1 {
		return false, orderNotFound(id)
	}
	return res[0] == 1, nil
}
