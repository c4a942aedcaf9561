package testenv_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
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
	// The server runs as scripts/redis.sh configures it: durable writes. A
	// setting we cannot read is a failure, not a pass: a server that hides
	// CONFIG would hide a missing fsync too.
	v, err := c.ConfigGet(ctx, "appendfsync").Result()
	if err != nil {
		t.Fatalf("read appendfsync: %v", err)
	}
	if v["appendfsync"] != "always" {
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

// childEnv, when set, makes TestChild ask testenv for what it names: the
// test binary run again by TestSkipOrFail, with the environment and flags of
// one case.
const childEnv = "TESTENV_CHILD"

// TestChild is no test of its own (it passes at once in a normal run):
// TestSkipOrFail runs it in a child process to see how it ends.
func TestChild(t *testing.T) {
	switch what := os.Getenv(childEnv); {
	case what == "":
	case what == "redis":
		testenv.Redis(t)
	case what == "clickhouse":
		t.Log("ClickHouse at", testenv.ClickHouseAddr(t))
	case strings.HasPrefix(what, "tool:"):
		t.Log("found at", testenv.Tool(t, strings.TrimPrefix(what, "tool:")))
	default:
		t.Fatalf("%s=%q: unknown", childEnv, what)
	}
}

// TestSkipOrFail: a test that lacks a server or a tool skips on a
// developer's machine and fails under CI=true, naming what is missing; -short
// skips integration tests on a developer's machine and fails them under
// CI=true. Each case runs this binary again (TestChild) with its own
// environment and reads how the test ended.
func TestSkipOrFail(t *testing.T) {
	const (
		pass = "PASS"
		skip = "SKIP"
		fail = "FAIL"
	)
	tests := []struct {
		name  string
		what  string   // TestChild's check
		env   []string // CI and GATEWAY_TEST_* are unset but for these
		short bool
		want  string // how the child test ends
		msg   string // in its output
	}{
		{"no Redis on a developer's machine", "redis", nil, false, skip, "GATEWAY_TEST_REDIS_URL is not set; skipping"},
		{"no Redis under CI", "redis", []string{"CI=true"}, false, fail, "needs a server, but GATEWAY_TEST_REDIS_URL is not set"},
		{"no Redis with CI=false", "redis", []string{"CI=false"}, false, skip, "GATEWAY_TEST_REDIS_URL is not set; skipping"},
		{"no ClickHouse under CI", "clickhouse", []string{"CI=1"}, false, fail, "needs a server, but GATEWAY_TEST_CLICKHOUSE_ADDR is not set"},
		{"ClickHouse under CI", "clickhouse", []string{"CI=true", testenv.ClickHouseAddrEnv + "=127.0.0.1:9"}, false, pass, "ClickHouse at 127.0.0.1:9"},
		{"-short on a developer's machine", "clickhouse", []string{testenv.ClickHouseAddrEnv + "=127.0.0.1:9"}, true, skip, "skipped in -short mode"},
		{"-short under CI", "clickhouse", []string{"CI=true", testenv.ClickHouseAddrEnv + "=127.0.0.1:9"}, true, fail,
			"integration tests cannot be skipped under CI=true; do not pass -short"},
		{"-short under CI without servers", "redis", []string{"CI=true"}, true, fail,
			"integration tests cannot be skipped under CI=true; do not pass -short"},
		{"tool missing on a developer's machine", "tool:testenv-no-such-tool", nil, false, skip, "testenv-no-such-tool is not installed: skipping"},
		{"tool missing under CI", "tool:testenv-no-such-tool", []string{"CI=true"}, false, fail,
			"testenv-no-such-tool is not installed"},
		{"tool missing under CI with -short", "tool:testenv-no-such-tool", []string{"CI=true"}, true, fail,
			"testenv-no-such-tool is not installed"},
		{"tool present under CI", "tool:sh", []string{"CI=true"}, false, pass, "found at /"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"-test.run=^TestChild$", "-test.v", "-test.count=1"}
			if tt.short {
				args = append(args, "-test.short")
			}
			cmd := exec.Command(os.Args[0], args...)
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				if name != "CI" && name != childEnv && !strings.HasPrefix(name, "GATEWAY_TEST_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(append(cmd.Env, childEnv+"="+tt.what), tt.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("run the child: %v", err)
			}
			got := ""
			for _, end := range []string{pass, skip, fail} {
				if bytes.Contains(out, []byte("--- "+end+": TestChild ")) {
					got = end
				}
			}
			if got != tt.want || (got == fail) != (err != nil) || !bytes.Contains(out, []byte(tt.msg)) {
				t.Fatalf("child ended %q (exit %v), want %q with %q:\n%s", got, err, tt.want, tt.msg, out)
			}
		})
	}
}
