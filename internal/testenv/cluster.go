package testenv

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/slotcheck"
)

// Environment variables of the Redis Cluster tests (`make test-cluster`
// starts a cluster with scripts/redis-cluster.sh and sets the first).
const (
	// RedisClusterURLEnv is a cluster seed in go-redis's form,
	// redis://h:p1?addr=h:p2&addr=h:p3.
	RedisClusterURLEnv = "GATEWAY_TEST_REDIS_CLUSTER_URL"
	// RequireClusterEnv=true makes a missing cluster a failure under CI=true
	// instead of a skip: the job that runs the cluster tests sets it.
	RequireClusterEnv = "GATEWAY_TEST_REQUIRE_CLUSTER"
)

// RedisClusterURL returns the cluster seed URL, or ends the test: skipped
// when unset (a cluster is not part of plain `make test`), failed when unset
// under CI=true with GATEWAY_TEST_REQUIRE_CLUSTER=true.
func RedisClusterURL(t testing.TB) string {
	t.Helper()
	if v := os.Getenv(RedisClusterURLEnv); v != "" {
		return v
	}
	if required, _ := strconv.ParseBool(os.Getenv(RequireClusterEnv)); required && inCI() {
		t.Fatalf("%s is not set, and %s=true under CI=true; run `make test-cluster`", RedisClusterURLEnv, RequireClusterEnv)
	}
	t.Skipf("%s is not set; skipping Redis Cluster test (`make test-cluster` starts one)", RedisClusterURLEnv)
	return ""
}

// RedisCluster returns a cluster client, checked by slotcheck like Redis's
// clients. A cluster has one keyspace: tests sharing it keep apart by names
// of their own (fresh merchants and orders), never by flushing it.
func RedisCluster(t testing.TB) *redis.ClusterClient {
	t.Helper()
	opt, err := redis.ParseClusterURL(RedisClusterURL(t))
	if err != nil {
		t.Fatalf("testenv: %s: %v", RedisClusterURLEnv, err)
	}
	c := redis.NewClusterClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("testenv: ping the Redis Cluster: %v", err)
	}
	slotcheck.Install(t, c)
	return c
}
