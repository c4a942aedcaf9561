package query

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// readThreads is max_threads of a report or rollup count query. They read
// a few thousand rows each since the rollups (docs/reporting.md), too few
// to gain from parallel streams, and several run at once (the fair gate's
// slots) on a machine of few cores: each asking for every core made them
// queue behind each other's threads. One thread each lets the gate's
// slots, not ClickHouse's thread pool, decide who runs.
const readThreads = 1

// readCtx is ctx with the read side's query settings; other query options
// ctx carries (a progress callback) are kept.
func readCtx(ctx context.Context) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_threads": readThreads}))
}
