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

// AuditLocalTable is the shard's own audit_log table on a cluster. Entries
// are routed by their id, so a replayed entry lands where its first copy
// is and the replacing table folds the two.
const AuditLocalTable = "audit_log_local"

// clusterTables are the tables that have a cluster form: the local table
// each shard holds and the Distributed table's sharding key.
var clusterTables = map[string]struct{ local, key string }{
	"orders":    {OrdersLocalTable, OrderShardingKey},
	"audit_log": {AuditLocalTable, "cityHash64(id)"},
	// The report tables live with the merchant's orders (docs/reporting.md).
	"report_hourly": {"report_hourly_local", OrderShardingKey},
	"report_marks":  {"report_marks_local", OrderShardingKey},
	"report_cells":  {"report_cells_local", OrderShardingKey},
	// The e-mail lookup too: a search reads it and then the orders, both of
	// the merchant's shard.
	"order_emails": {"order_emails_local", OrderShardingKey},
	// The journal's postings live with the merchant's orders too: a
	// statement reads one shard, the fee income joins a posting to its order
	// on the shard that holds both.
	"journal":      {"journal_local", OrderShardingKey},
	"journal_days": {"journal_days_local", OrderShardingKey},
}

// ident is what may be written into DDL unquoted: cluster and database names.
var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// tableDDL finds the statement's verb and the table it names, after any
// leading comment lines.
var tableDDL = regexp.MustCompile(`^((?:\s*--[^\n]*\n)*\s*)(CREATE TABLE IF NOT EXISTS|ALTER TABLE|DROP TABLE IF EXISTS)\s+([A-Za-z_][A-Za-z0-9_]*)\b`)

// ClusterStatements are what one node of cluster applies for m, in order,
// database being the DSN's: the statement on the table's local table
// (OrdersLocalTable, AuditLocalTable) and then its
// counterpart on the Distributed table. A CREATE of orders creates the
// Distributed table after the local one (columns as the local table's); an
// ALTER is applied to both, since a Distributed table keeps its own column
// list. A migration on any other table has no cluster form yet and is an
// error, so a new kind of migration cannot be applied half-sharded. A DROP
// drops the Distributed table and then the local one.
// fromOrders is a read of the Distributed orders table inside a migration.
var fromOrders = regexp.MustCompile(`(?i)(\bFROM\s+)orders\b`)

func (m Migration) ClusterStatements(cluster, database string) ([]string, error) {
	if !ident.MatchString(cluster) || !ident.MatchString(database) {
		return nil, fmt.Errorf("cluster %q and database %q must be plain identifiers", cluster, database)
	}
	sub := tableDDL.FindStringSubmatch(m.SQL)
	var t struct{ local, key string }
	var ok bool
	if sub != nil {
		t, ok = clusterTables[sub[3]]
	}
	if !ok {
		return nil, fmt.Errorf("migration %s: neither creates, alters nor drops a table with a cluster form (orders, audit_log, report_hourly, report_marks, report_cells, order_emails, journal, journal_days)", m.Name)
	}
	local := tableDDL.ReplaceAllString(m.SQL, "${1}${2} "+t.local)
	// A table created from the orders already projected reads each shard's
	// own orders: the nodes are migrated one by one, so the Distributed table
	// may still lack a shard's local table, and a lookup sharded by the
	// orders' key holds exactly its shard's orders.
	local = fromOrders.ReplaceAllString(local, "${1}"+OrdersLocalTable)
	switch sub[2] {
	case "ALTER TABLE":
		return []string{local, m.SQL}, nil
	case "DROP TABLE IF EXISTS": // the Distributed table first: nothing reads through it a table gone
		return []string{m.SQL, local}, nil
	}
	dist := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = Distributed(%s, %s, %s, %s)",
		sub[3], t.local, cluster, database, t.local, t.key)
	return []string{local, dist}, nil
}
