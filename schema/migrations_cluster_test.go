package schema

import (
	"strings"
	"testing"
)

// TestClusterStatements: a CREATE of orders becomes the local table and the
// Distributed table over it; an ALTER is applied to both; anything else,
// or a name that is not an identifier, is refused.
func TestClusterStatements(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		cluster string
		want    []string // substrings of each statement, in order
		err     bool
	}{
		{"create", "-- comment\n-- more\nCREATE TABLE IF NOT EXISTS orders (\n appid String\n) ENGINE = ReplacingMergeTree(version)", "gw",
			[]string{"-- more\nCREATE TABLE IF NOT EXISTS orders_local (\n appid String", "CREATE TABLE IF NOT EXISTS orders AS orders_local ENGINE = Distributed(gw, shop, orders_local, cityHash64(appid))"}, false},
		{"alter", "-- c\nALTER TABLE orders\n ADD COLUMN x String DEFAULT ''", "gw",
			[]string{"ALTER TABLE orders_local\n ADD COLUMN x", "-- c\nALTER TABLE orders\n ADD COLUMN x"}, false},
		{"audit log", "CREATE TABLE IF NOT EXISTS audit_log (\n id String\n) ENGINE = ReplacingMergeTree()", "gw",
			[]string{"CREATE TABLE IF NOT EXISTS audit_log_local (\n id String", "CREATE TABLE IF NOT EXISTS audit_log AS audit_log_local ENGINE = Distributed(gw, shop, audit_log_local, cityHash64(id))"}, false},
		{"drop", "-- gone\nDROP TABLE IF EXISTS report_hourly", "gw",
			[]string{"-- gone\nDROP TABLE IF EXISTS report_hourly", "DROP TABLE IF EXISTS report_hourly_local"}, false},
		{"another table", "CREATE TABLE IF NOT EXISTS webhooks (a String) ENGINE = Log", "gw", nil, true},
		{"a table named like orders", "ALTER TABLE orders_archive ADD COLUMN x String", "gw", nil, true},
		{"cluster name not an identifier", "ALTER TABLE orders ADD COLUMN x String", "gw); DROP", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Migration{Name: "0009_x", SQL: tt.sql}.ClusterStatements(tt.cluster, "shop")
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want error %v", err, tt.err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("statements %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Fatalf("statement %d\n%s\nlacks\n%s", i, got[i], w)
				}
			}
		})
	}
}

// TestEmbeddedMigrationsHaveClusterForms: every migration we ship can be
// applied to a cluster.
func TestEmbeddedMigrationsHaveClusterForms(t *testing.T) {
	all, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if _, err := m.ClusterStatements("gw", "gateway"); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
}
