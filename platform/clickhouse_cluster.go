package platform

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// OpenClickHouseCluster is OpenClickHouse for a gateway whose orders are
// sharded over cluster (empty: one node, exactly OpenClickHouse).
//
// Writes go through the Distributed table "orders" with
// insert_distributed_sync=1: the node the DSN names splits each batch by
// the sharding key (schema.OrderShardingKey) and answers only once every
// shard has written its part. The projector acknowledges a stream entry
// only after that answer, as on one node, so a row is visible on its shard
// when the entry is acknowledged, and a failed insert is retried whole: the
// part some shard already took is written again with the same version, which
// the replacing table and the readers' folding treat as one. The other
// choices were worse here: the default asynchronous Distributed insert
// answers once the rows sit in the node's local queue, so a listing could
// miss an order the projector had acknowledged, and the queue would hold
// rows no stream entry stands for any more; writing straight to the shard
// chosen in Go would need ClickHouse's CityHash and the cluster's layout in
// the projector, repeating what the Distributed engine does.
func OpenClickHouseCluster(dsn, cluster string) (driver.Conn, error) {
	opt, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	if cluster != "" {
		if opt.Settings == nil {
			opt.Settings = clickhouse.Settings{}
		}
		opt.Settings["insert_distributed_sync"] = 1
	}
	setTimeouts(opt)
	conn, err := clickhouse.Open(opt)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse: %w", err)
	}
	return conn, nil
}

// MigrateCluster applies the migrations to every node of cluster, as the
// node the DSN names lists them in system.clusters: on each, the local
// replacing table sharded by merchant and the Distributed table over the
// cluster (schema.Migration.ClusterStatements), recorded in that node's
// own schema_migrations. Each node is migrated over its own connection
// rather than with ON CLUSTER, which needs a ZooKeeper the cluster may not
// have (ours in tests has none); this way one path serves both. It is safe
// to run again: a node that has every migration is left alone, and a node
// added to the cluster later gets them all. applied lists "host:port
// migration" for what was applied now.
func MigrateCluster(ctx context.Context, dsn, cluster string) (applied []string, err error) {
	opt, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	db := opt.Auth.Database
	if db == "" {
		db = "default"
	}
	nodes, err := ClusterNodes(ctx, dsn, cluster)
	if err != nil {
		return nil, err
	}
	stmts := func(m schema.Migration) ([]string, error) { return m.ClusterStatements(cluster, db) }
	for _, addr := range nodes {
		node := *opt
		node.Addr = []string{addr}
		names, err := migrateNode(ctx, &node, stmts)
		if err != nil {
			return applied, fmt.Errorf("clickhouse node %s: %w", addr, err)
		}
		for _, n := range names {
			applied = append(applied, addr+" "+n)
		}
	}
	return applied, nil
}

// ClusterNodes lists the host:port of every replica of every shard of
// cluster, in shard order, as the DSN's node knows the cluster.
func ClusterNodes(ctx context.Context, dsn, cluster string) ([]string, error) {
	opt, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	opt.Auth.Database = "default" // the DSN's own may not exist yet
	conn, err := openClickHouse(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rows, err := conn.Query(ctx, "SELECT host_address, port FROM system.clusters WHERE cluster = ? ORDER BY shard_num, replica_num", cluster)
	if err != nil {
		return nil, fmt.Errorf("read cluster %s: %w", cluster, err)
	}
	defer rows.Close()
	var nodes []string
	for rows.Next() {
		var (
			host string
			port uint16
		)
		if err := rows.Scan(&host, &port); err != nil {
			return nil, fmt.Errorf("read cluster %s: %w", cluster, err)
		}
		nodes = append(nodes, net.JoinHostPort(host, strconv.Itoa(int(port))))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read cluster %s: %w", cluster, err)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("clickhouse at %v has no cluster %q in its remote_servers", opt.Addr, cluster)
	}
	return nodes, nil
}
