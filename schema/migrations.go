package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one versioned ClickHouse DDL step. Files are named
// NNNN_what.sql; each holds one statement (18.16's native protocol takes one
// statement a query).
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with NNNN_", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share a version", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// OrderColumns are the orders table's columns the projector writes, in the
// order of OrderRow. INSERTs name them: 18.16 needs it, and it keeps inserts
// working when a later migration adds a column.
var OrderColumns = []string{
	"appid", "created_at", "id", "version", "sandbox", "client_order_id", "amount", "currency", "method",
	"status", "description", "customer_name", "customer_email", "customer_phone", "notify_url", "return_url",
	"lang", "allowed_methods", "fiatpsp_system_id", "provider_url", "next_action", "qr_payload",
	"payable_amount", "paid_with_balance", "created_ms", "updated_ms", "completed_ms", "event_ms",
	"pay_currency", "charge_amount", "charge_currency", "fx_rate", "provider_ref", "refunded_amount",
}
