package chaos

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

// TestRequireFsync: a run starts only on a Redis that fsyncs every write.
// The Redis of scripts/redis.sh passes; one whose setting cannot be read
// (miniredis has no CONFIG) stops the run instead of passing on nothing.
func TestRequireFsync(t *testing.T) {
	ctx := context.Background()
	if err := requireFsync(ctx, testenv.Redis(t)); err != nil {
		t.Errorf("scripts/redis.sh's Redis: %v", err)
	}
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()
	if err := requireFsync(ctx, rdb); err == nil {
		t.Error("a Redis whose appendfsync cannot be read was accepted")
	}
}
