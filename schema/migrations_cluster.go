package schema

import (
	"fmt"
	"regexp"
)

// On a ClickHouse cluster (GATEWAY_CLICKHOUSE_CLUSTER) the orders of each
// merchant live on one shard, in that shard's OrdersLocalTable, and every
// node also holds a Distributed table under the single-node name "orders"
// over them. Readers and the projector keep naming "orders": the same
// queries run on one node and on a cluster.

// OrdersLocalTable is the shard's own replacing table on a cluster.
const OrdersLocalTable = "orders_local"

// OrderShardingKey routes a row to its shard by merchant: all of a
// merchant's versions of all its orders land on one shard, so a listing's
// folding (GROUP BY the order's key, argMax of the version) and the
// ReplacingMergeTree's own merges see every version of an order in one
// place, and the other shards hold nothing the merchant's queries read.
const OrderShardingKey = "cityHash64(appid)"

// ident is what may be written into DDL unquoted: cluster and database names.
var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ordersDDL finds the statement's verb and the orders table it names, after
// any leading comment lines.
var ordersDDL = regexp.MustCompile(`^((?:\s*--[^\n]*\n)*\s*)(CREATE TABLE IF NOT EXISTS|ALTER TABLE)\s+orders\b`)

// ClusterStatements are what one node of cluster applies for m, in order,
// database being the DSN's: the statement on OrdersLocalTable and then its
// counterpart on the Distributed table. A CREATE of orders creates the
// Distributed table after the local one (columns as the local table's); an
// ALTER is applied to both, since a Distributed table keeps its own column
// list. A migration on any other table has no cluster form yet and is an
// error, so a new kind of migration cannot be applied half-sharded.
func (m Migration) ClusterStatements(cluster, database string) ([]string, error) {
	if !ident.MatchString(cluster) || !ident.MatchString(database) {
		return nil, fmt.Errorf("cluster %q and database %q must be plain identifiers", cluster, database)
	}
	sub := ordersDDL.FindStringSubmatch(m.SQL)
	if sub == nil {
		return nil, fmt.Errorf("migration %s: neither creates nor alters the orders table; it has no cluster form", m.Name)
	}
	local := ordersDDL.ReplaceAllString(m.SQL, "${1}${2} "+OrdersLocalTable)
	if sub[2] == "ALTER TABLE" {
		return []string{local, m.SQL}, nil
	}
	dist := fmt.Sprintf("CREATE TABLE IF NOT EXISTS orders AS %s ENGINE = Distributed(%s, %s, %s, %s)",
		OrdersLocalTable, cluster, database, OrdersLocalTable, OrderShardingKey)
	return []string{local, dist}, nil
}
