package platform

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// OpenClickHouse prepares a connection pool over the native protocol (the
// only one that works with 18.16) to the DSN's database. It does not dial:
// a gateway whose ClickHouse is down still starts, its projector backs off
// and its readiness says why.
func OpenClickHouse(dsn string) (driver.Conn, error) {
	return OpenClickHouseCluster(dsn, "")
}

func setTimeouts(opt *clickhouse.Options) {
	if opt.DialTimeout == 0 {
		opt.DialTimeout = 5 * time.Second
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = 30 * time.Second
	}
}

func openClickHouse(ctx context.Context, opt *clickhouse.Options) (driver.Conn, error) {
	setTimeouts(opt)
	conn, err := clickhouse.Open(opt)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("ping clickhouse at %v: %w", opt.Addr, err)
	}
	return conn, nil
}

var dbName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Migrate creates the DSN's database when needed and applies the embedded
// migrations it has not applied yet, recording each. It is safe to run again
// and from several processes (every statement is IF NOT EXISTS).
func Migrate(ctx context.Context, dsn string) ([]string, error) {
	opt, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	return migrateNode(ctx, opt, func(m schema.Migration) ([]string, error) { return []string{m.SQL}, nil })
}

// migrateNode applies to one node the statements stmts gives for each
// migration the node has not recorded, then records it there.
func migrateNode(ctx context.Context, opt *clickhouse.Options, stmts func(schema.Migration) ([]string, error)) ([]string, error) {
	if err := createDatabase(ctx, *opt); err != nil {
		return nil, err
	}
	conn, err := openClickHouse(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, name String, applied_at DateTime) ENGINE = TinyLog"); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	done, err := appliedMigrations(ctx, conn)
	if err != nil {
		return nil, err
	}
	migrations, err := schema.Migrations()
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range migrations {
		if done[uint32(m.Version)] {
			continue
		}
		sqls, err := stmts(m)
		if err != nil {
			return nil, err
		}
		for _, q := range sqls {
			if err := conn.Exec(ctx, q); err != nil {
				return nil, fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
		if err := recordMigration(ctx, conn, m); err != nil {
			return nil, fmt.Errorf("record migration %s: %w", m.Name, err)
		}
		applied = append(applied, m.Name)
	}
	return applied, nil
}

// createDatabase connects to the default database, which always exists, to
// create the DSN's own.
func createDatabase(ctx context.Context, opt clickhouse.Options) error {
	db := opt.Auth.Database
	if db == "" || db == "default" {
		return nil
	}
	if !dbName.MatchString(db) {
		return fmt.Errorf("database name %q is not a plain identifier", db)
	}
	opt.Auth.Database = "default"
	conn, err := openClickHouse(ctx, &opt)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db); err != nil {
		return fmt.Errorf("create database %s: %w", db, err)
	}
	return nil
}

func appliedMigrations(ctx context.Context, conn driver.Conn) (map[uint32]bool, error) {
	rows, err := conn.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	done := map[uint32]bool{}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		done[v] = true
	}
	return done, rows.Err()
}

// recordMigration inserts through a batch: 18.16 over the native protocol
// takes rows as data blocks, not as VALUES in the query text.
func recordMigration(ctx context.Context, conn driver.Conn, m schema.Migration) error {
	b, err := conn.PrepareBatch(ctx, "INSERT INTO schema_migrations (version, name, applied_at)")
	if err != nil {
		return err
	}
	if err := b.Append(uint32(m.Version), m.Name, time.Now().UTC().Truncate(time.Second)); err != nil {
		return err
	}
	return b.Send()
}
