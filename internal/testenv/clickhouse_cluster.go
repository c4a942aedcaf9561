package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// ClickHouseClusterEnv names a ClickHouse cluster for the cluster tests, as
// NAME@host:port,host:port (every node, in shard order), the form
// scripts/clickhouse-cluster.sh prints and `make test-cluster` sets.
const ClickHouseClusterEnv = "GATEWAY_TEST_CLICKHOUSE_CLUSTER"

// Cluster is a test ClickHouse cluster and a database of this test's own
// on it (not created: `gateway migrate` creates it on every node; dropped
// on every node when the test ends).
type Cluster struct {
	Name  string   // as in the nodes' remote_servers
	Nodes []string // host:port of every node, in shard order
	DB    string
}

// DSN is the clickhouse:// DSN of the test's database on node i.
func (c *Cluster) DSN(i int) string { return fmt.Sprintf("clickhouse://%s/%s", c.Nodes[i], c.DB) }

// ClickHouseCluster returns the cluster GATEWAY_TEST_CLICKHOUSE_CLUSTER
// names. Unlike the single servers, a missing cluster skips the test even
// under CI=true: `make test` starts none; `make test-cluster` does.
func ClickHouseCluster(t testing.TB) *Cluster {
	t.Helper()
	raw := os.Getenv(ClickHouseClusterEnv)
	if raw == "" || testing.Short() {
		t.Skipf("%s is not set (or -short); skipping the ClickHouse cluster test (`make test-cluster` runs it)", ClickHouseClusterEnv)
	}
	name, nodes, ok := strings.Cut(raw, "@")
	if !ok || name == "" || nodes == "" {
		t.Fatalf("testenv: %s=%q: want NAME@host:port,host:port", ClickHouseClusterEnv, raw)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	c := &Cluster{Name: name, Nodes: strings.Split(nodes, ","), DB: "test_" + hex.EncodeToString(b[:])}
	t.Cleanup(func() {
		for _, addr := range c.Nodes {
			if err := dropDatabase(addr, c.DB); err != nil {
				t.Errorf("testenv: %v", err)
			}
		}
	})
	return c
}

func dropDatabase(addr, db string) error {
	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, DialTimeout: setupTimeout})
	if err != nil {
		return fmt.Errorf("open ClickHouse at %s: %w", addr, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		return fmt.Errorf("drop ClickHouse database %s at %s: %w", db, addr, err)
	}
	return nil
}
