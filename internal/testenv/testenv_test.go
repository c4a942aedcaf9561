package testenv_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

func TestRedisDatabasesAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := testenv.Redis(t), testenv.Redis(t)
	if a.Options().DB == 0 || a.Options().DB == b.Options().DB {
		t.Fatalf("databases %d and %d: want two different non-zero indexes", a.Options().DB, b.Options().DB)
	}
	if err := a.Set(ctx, "k", "a", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("key set in db %d is visible in db %d (exists=%d, err=%v)", a.Options().DB, b.Options().DB, n, err)
	}

	// The URL of a client reaches the same database.
	opt, err := redis.ParseURL(testenv.RedisURLFor(a))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "a" {
		t.Fatalf("through %s: got %q, %v; want \"a\"", testenv.RedisURLFor(a), v, err)
	}
}

func TestRedisURLIsFreshAndEmpty(t *testing.T) {
	ctx := context.Background()
	opt, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("db %d: size %d, err %v; want an empty database", opt.DB, n, err)
	}
	// The server runs as scripts/redis.sh configures it: durable writes.
	if v, err := c.ConfigGet(ctx, "appendfsync").Result(); err == nil && v["appendfsync"] != "always" {
		t.Errorf("appendfsync = %q, want always", v["appendfsync"])
	}
}

func TestClickHouseDatabase(t *testing.T) {
	ctx := context.Background()
	testenv.ClickHouseAddr(t) // skips here, not in the subtest, when there is no server
	var addr, db string
	// In a subtest, so that its cleanup (the DROP) has run when it returns.
	t.Run("use", func(t *testing.T) {
		addr, db = testenv.ClickHouseDatabase(t)
		conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, Auth: clickhouse.Auth{Database: db}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		v, err := conn.ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ClickHouse %s at %s, database %s", v, addr, db)

		// The engine the projector relies on: rows of one key collapse to the
		// highest version.
		if err := conn.Exec(ctx, `CREATE TABLE orders (id String, version UInt64, status UInt8, created DateTime)
			ENGINE = ReplacingMergeTree(version) ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		batch, err := conn.PrepareBatch(ctx, "INSERT INTO orders (id, version, status, created)")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Second)
		for _, r := range []struct {
			id      string
			version uint64
			status  uint8
		}{{"a", 1, 0}, {"a", 2, 2}, {"b", 1, 1}} {
			if err := batch.Append(r.id, r.version, r.status, now); err != nil {
				t.Fatal(err)
			}
		}
		if err := batch.Send(); err != nil {
			t.Fatal(err)
		}
		var status uint8
		var created time.Time
		if err := conn.QueryRow(ctx, "SELECT status, created FROM orders FINAL WHERE id = 'a'").Scan(&status, &created); err != nil {
			t.Fatal(err)
		}
		if status != 2 || !created.Equal(now) {
			t.Fatalf("order a: status %d created %v; want 2 and %v", status, created, now)
		}
	})

	conn, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var names []string
	rows, err := conn.Query(ctx, "SELECT name FROM system.databases")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if slices.Contains(names, db) {
		t.Errorf("database %s still exists after its test ended", db)
	}
}

func TestClickHouseDSN(t *testing.T) {
	opt, err := clickhouse.ParseDSN(testenv.ClickHouseDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clickhouse.Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n uint64
	if err := conn.QueryRow(context.Background(), "SELECT count() FROM system.tables WHERE database = currentDatabase()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("fresh database has %d tables", n)
	}
}
