// Package testenv gives integration tests the real Redis and ClickHouse that
// `make test` starts (scripts/testenv.sh), and keeps tests apart inside them:
// each test gets a Redis database index and a ClickHouse database of its own,
// so packages can run in parallel against one pair of servers.
//
// The servers are found through GATEWAY_TEST_REDIS_URL and
// GATEWAY_TEST_CLICKHOUSE_ADDR. When one is missing, a test that needs it is
// skipped on a developer's machine (plain `go test`), but fails in CI (CI=true):
// there a skip would let an integration test pass without running. Tools the
// checks run (promtool) are found the same way, through Tool.
//
// With -short, integration tests are skipped on a developer's machine
// (`make test-short`). Under CI=true they fail instead, saying so: a CI job
// that passes -short asked for a green run without the integration tests,
// which CI must not give. Running them anyway would hide the job's mistake,
// so -short is refused rather than ignored.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/slotcheck"
)

// Environment variables set by scripts/testenv.sh.
const (
	RedisURLEnv       = "GATEWAY_TEST_REDIS_URL"       // redis://127.0.0.1:PORT/0
	ClickHouseAddrEnv = "GATEWAY_TEST_CLICKHOUSE_ADDR" // 127.0.0.1:PORT (native protocol)
)

// dbCounterKey, in database 0, numbers the databases handed out. INCR is
// atomic, so test binaries running in parallel never get the same index at once.
const dbCounterKey = "testenv:next-db"

const setupTimeout = 15 * time.Second

// lookup returns the variable's value, or ends the test: a skip in -short
// mode (`make test-short` runs without servers) or when the variable is unset
// on a developer's machine; a failure in CI for either.
func lookup(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		if inCI() {
			t.Fatal("integration tests cannot be skipped under CI=true; do not pass -short")
		}
		t.Skip("integration test: skipped in -short mode")
	}
	if v := os.Getenv(name); v != "" {
		return v
	}
	if inCI() {
		t.Fatalf("integration test needs a server, but %s is not set; run `make test`", name)
	}
	t.Skipf("%s is not set; skipping integration test (`make test` starts Redis and ClickHouse)", name)
	return ""
}

// inCI reports whether the tests run in CI (CI=true, as CI services set
// it), where nothing may be skipped for want of a server or a tool.
func inCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Tool returns the path of the command-line tool name (e.g. promtool) that a
// check runs. Where it is not installed the test is skipped on a developer's
// machine, but fails under CI=true, naming the tool: a skipped check there
// would pass without running. scripts/deps.sh installs every tool the tests
// need. -short does not matter: a tool is not a server.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if inCI() {
		t.Fatalf("%s is not installed (%v), and under CI=true the check that needs it cannot be skipped; scripts/deps.sh installs it", name, err)
	}
	t.Skipf("%s is not installed: skipping the check that needs it (scripts/deps.sh installs it)", name)
	return ""
}

// Redis returns a client on a Redis database of this test's own, empty at
// the start. It is always one node's (under `make test-cluster` too, where
// RedisURL and Client give the cluster). The client is closed when the test ends; the data is left for
// inspection until the index is handed out again.
//
// Every command the client sends is checked as Redis Cluster would check
// it (package slotcheck): a script, multi-key command or MULTI/EXEC whose
// keys span hash slots, or a KEYS/SCAN, fails the test, so every test that
// runs a script proves the script cluster-safe.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	opt := redisOptions(t)
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	slotcheck.Install(t, c)
	return c
}

// RedisURL returns the redis:// URL of a database of this test's own, empty
// at the start, for handing to a subprocess or to code that takes a URL.
//
// Under `make test-cluster` it is the test Redis Cluster's seed URL: the
// cluster is emptied and the test has it to itself until it ends.
func RedisURL(t testing.TB) string {
	t.Helper()
	if seed, ok := clusterSeed(); ok {
		return clusterRedisURL(t, seed)
	}
	return urlFor(redisOptions(t))
}

// RedisURLFor returns the URL of the server and database c talks to, as
// redis.ParseURL reads it, e.g. to give a subprocess the database of Redis(t).
func RedisURLFor(c *redis.Client) string { return urlFor(c.Options()) }

func urlFor(opt *redis.Options) string {
	u := url.URL{Scheme: "redis", Host: opt.Addr, Path: "/" + strconv.Itoa(opt.DB)}
	if opt.TLSConfig != nil {
		u.Scheme = "rediss"
	}
	switch {
	case opt.Username != "" && opt.Password != "":
		u.User = url.UserPassword(opt.Username, opt.Password)
	case opt.Username != "":
		u.User = url.User(opt.Username)
	case opt.Password != "":
		u.User = url.UserPassword("", opt.Password)
	}
	return u.String()
}

// redisOptions allocates a database index for the test and empties it.
func redisOptions(t testing.TB) *redis.Options {
	t.Helper()
	raw := lookup(t, RedisURLEnv)
	opt, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatalf("testenv: %s=%q: %v", RedisURLEnv, raw, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()

	// Database 0 holds only the counter; tests get 1..n-1.
	opt.DB = 0
	admin := redis.NewClient(opt)
	defer admin.Close()
	n, err := admin.Incr(ctx, dbCounterKey).Result()
	if err != nil {
		t.Fatalf("testenv: allocate a Redis database at %s: %v", opt.Addr, err)
	}
	opt.DB = 1 + int((n-1)%int64(databases(ctx, admin)-1))

	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(ctx).Err(); err != nil {
		t.Fatalf("testenv: flush Redis database %d at %s: %v", opt.DB, opt.Addr, err)
	}
	return opt
}

// databases is the server's number of databases: 1024 on the servers our
// scripts start, 16 on a stock Redis someone points the tests at.
func databases(ctx context.Context, c *redis.Client) int {
	const ours = 1024
	v, err := c.ConfigGet(ctx, "databases").Result()
	if err != nil { // CONFIG may be disabled on a managed server
		return ours
	}
	n, err := strconv.Atoi(v["databases"])
	if err != nil || n < 2 {
		return ours
	}
	return n
}

// ClickHouseAddr returns host:port of the test ClickHouse (native protocol).
func ClickHouseAddr(t testing.TB) string {
	t.Helper()
	return lookup(t, ClickHouseAddrEnv)
}

// ClickHouseDatabase creates an empty database of this test's own
// (test_<random hex>) and drops it when the test ends.
func ClickHouseDatabase(t testing.TB) (addr, db string) {
	t.Helper()
	addr = ClickHouseAddr(t)
	conn, err := clickhouse.Open(&clickhouse.Options{
		Addr:        []string{addr},
		DialTimeout: setupTimeout,
	})
	if err != nil {
		t.Fatalf("testenv: open ClickHouse at %s: %v", addr, err)
	}
	db = "test_" + randomHex()

	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		_ = conn.Close()
		t.Fatalf("testenv: create ClickHouse database at %s: %v", addr, err)
	}
	t.Cleanup(func() {
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
			t.Errorf("testenv: drop ClickHouse database %s: %v", db, err)
		}
	})
	return addr, db
}

// ClickHouseDSN returns a clickhouse:// DSN (the form of GATEWAY_CLICKHOUSE_DSN)
// for a fresh database of this test's own, dropped when the test ends.
func ClickHouseDSN(t testing.TB) string {
	t.Helper()
	if _, nodes, ok := clickHouseCluster(); ok {
		return clusterDSN(t, nodes)
	}
	addr, db := ClickHouseDatabase(t)
	return fmt.Sprintf("clickhouse://%s/%s", addr, db)
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
