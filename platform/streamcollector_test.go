package platform

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestStreamCollector(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	stream := schema.EventsKey(3)
	for range 5 {
		rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"type", "created"}})
	}
	rdb.XGroupCreate(ctx, stream, "projector", "0")
	rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "projector", Consumer: "c", Streams: []string{stream, ">"}, Count: 2})
	want := `
# HELP gateway_stream_group_lag Entries a consumer group has not read yet.
# TYPE gateway_stream_group_lag gauge
gateway_stream_group_lag{group="projector",shard="3"} 3
# HELP gateway_stream_group_pending Entries a consumer group read and has not acknowledged.
# TYPE gateway_stream_group_pending gauge
gateway_stream_group_pending{group="projector",shard="3"} 2
`
	if err := testutil.CollectAndCompare(NewStreamCollector(rdb), strings.NewReader(want), "gateway_stream_group_lag", "gateway_stream_group_pending"); err != nil {
		t.Fatal(err)
	}
	lengths := "# HELP gateway_stream_length Entries in a shard's event stream.\n# TYPE gateway_stream_length gauge\n"
	for s := range schema.NumShards {
		n := 0
		if s == 3 {
			n = 5
		}
		lengths += fmt.Sprintf("gateway_stream_length{shard=\"%d\"} %d\n", s, n)
	}
	if err := testutil.CollectAndCompare(NewStreamCollector(rdb), strings.NewReader(lengths), "gateway_stream_length"); err != nil {
		t.Fatal(err)
	}
}
