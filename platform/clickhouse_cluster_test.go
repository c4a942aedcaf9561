package platform

import (
	"context"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestMigrateCluster migrates the ClickHouse cluster of `make test-cluster`
// from one node's DSN: every node the cluster lists gets the local replacing
// table, the Distributed table over the cluster and its own record of each
// migration; a second run, from another node, applies nothing.
func TestMigrateCluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	ctx := context.Background()
	all, _ := schema.Migrations()
	applied, err := MigrateCluster(ctx, c.DSN(0), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != len(all)*len(c.Nodes) {
		t.Fatalf("applied %v, want %d migrations on each of %d nodes", applied, len(all), len(c.Nodes))
	}
	for _, addr := range c.Nodes {
		conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, Auth: clickhouse.Auth{Database: c.DB}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		engines := map[string]string{}
		rows, err := conn.Query(ctx, "SELECT name, engine_full FROM system.tables WHERE database = ?", c.DB)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name, engine string
			if err := rows.Scan(&name, &engine); err != nil {
				t.Fatal(err)
			}
			engines[name] = engine
		}
		rows.Close()
		if !strings.HasPrefix(engines[schema.OrdersLocalTable], "ReplacingMergeTree") ||
			!strings.Contains(engines["orders"], "Distributed("+c.Name) || !strings.Contains(engines["orders"], schema.OrderShardingKey) {
			t.Fatalf("node %s tables: %v", addr, engines)
		}
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM schema_migrations").Scan(&n); err != nil || int(n) != len(all) {
			t.Fatalf("node %s records %d migrations (%v), want %d", addr, n, err, len(all))
		}
		var cols uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM system.columns WHERE database = ? AND table = 'orders' AND name = 'provider_ref'", c.DB).Scan(&cols); err != nil || cols != 1 {
			t.Fatalf("node %s: the Distributed table lacks a column a later migration added (%d, %v)", addr, cols, err)
		}
	}
	again, err := MigrateCluster(ctx, c.DSN(len(c.Nodes)-1), c.Name)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v, %v", again, err)
	}
	if _, err := MigrateCluster(ctx, c.DSN(0), "no_such_cluster"); err == nil || !strings.Contains(err.Error(), "no_such_cluster") {
		t.Fatalf("unknown cluster: %v", err)
	}
}
