package testenv

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/redis/go-redis/v9"
)

// clusterTurn lets one test at a time use the cluster: a cluster has one
// database, so tests cannot be kept apart by database index as on a single
// node. `make test-cluster` runs packages one after the other (-p 1).
var clusterTurn sync.Mutex

// clusterSeed reports the test Redis Cluster's seed URL, if any.
func clusterSeed() (string, bool) {
	v := os.Getenv(RedisClusterURLEnv)
	return v, v != ""
}

// clusterRedisURL waits for the cluster's turn, empties every master and
// returns the seed URL; the turn passes on when the test ends.
func clusterRedisURL(t testing.TB, seed string) string {
	t.Helper()
	clusterTurn.Lock()
	t.Cleanup(clusterTurn.Unlock)
	c := clusterClient(t, seed)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		return m.FlushAll(ctx).Err()
	})
	if err != nil {
		t.Fatalf("testenv: empty the Redis Cluster at %s: %v", seed, err)
	}
	return seed
}

func clusterClient(t testing.TB, seed string) *redis.ClusterClient {
	t.Helper()
	opt, err := redis.ParseClusterURL(seed)
	if err != nil {
		t.Fatalf("testenv: %s=%q: %v", RedisClusterURLEnv, seed, err)
	}
	return redis.NewClusterClient(opt)
}

// Client opens a client on the Redis a URL from RedisURL names: a cluster
// client under `make test-cluster`, else a single node's. It is closed when
// the test ends.
func Client(t testing.TB, rawURL string) redis.UniversalClient {
	t.Helper()
	var c redis.UniversalClient
	if seed, ok := clusterSeed(); ok && seed == rawURL {
		c = clusterClient(t, seed)
	} else {
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			t.Fatalf("testenv: parse %q: %v", rawURL, err)
		}
		c = redis.NewClient(opt)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// clickHouseCluster parses ClickHouseClusterEnv.
func clickHouseCluster() (name string, nodes []string, ok bool) {
	v := os.Getenv(ClickHouseClusterEnv)
	name, list, found := strings.Cut(v, "@")
	if !found || name == "" || list == "" {
		return "", nil, false
	}
	return name, strings.Split(list, ","), true
}

// createOnCluster creates db on every node of the test ClickHouse cluster
// (the sharded tables of migrate live in it on each node) and drops it
// everywhere when the test ends.
func createOnCluster(t testing.TB, nodes []string, db string) {
	t.Helper()
	for _, addr := range nodes {
		conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, DialTimeout: setupTimeout})
		if err != nil {
			t.Fatalf("testenv: open ClickHouse at %s: %v", addr, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		err = conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db)
		cancel()
		if err != nil {
			_ = conn.Close()
			t.Fatalf("testenv: create ClickHouse database %s at %s: %v", db, addr, err)
		}
		t.Cleanup(func() {
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
			defer cancel()
			if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
				t.Errorf("testenv: drop ClickHouse database %s at %s: %v", db, addr, err)
			}
		})
	}
}

// clusterDSN is ClickHouseDSN under `make test-cluster`: the database
// exists on every node, and the DSN names the first.
func clusterDSN(t testing.TB, nodes []string) string {
	t.Helper()
	db := "test_" + randomHex()
	createOnCluster(t, nodes, db)
	return fmt.Sprintf("clickhouse://%s/%s", nodes[0], db)
}

// RedisClusterDir is the data folder of the test Redis Cluster (its nodes
// under node-PORT), for tests that kill and restart nodes. Without a
// cluster the test is skipped (`make test` runs on one node), unless
// RequireClusterEnv says the cluster was meant to be there.
func RedisClusterDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("GATEWAY_TEST_REDIS_CLUSTER_DIR"); dir != "" {
		return dir
	}
	if required, _ := strconv.ParseBool(os.Getenv(RequireClusterEnv)); required {
		t.Fatalf("%s=true, but GATEWAY_TEST_REDIS_CLUSTER_DIR is not set; run `make test-cluster`", RequireClusterEnv)
	}
	t.Skip("needs the Redis Cluster of `make test-cluster`")
	return ""
}
