package secaudit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// loopbackOnly says whether every address in addrs is a loopback one.
func loopbackOnly(addrs []string) bool {
	for _, a := range addrs {
		if a != "127.0.0.1" && a != "::1" && a != "-::1" {
			return false
		}
	}
	return len(addrs) > 0
}

// TestScriptsBindLoopback reads the configurations our scripts write: Redis
// binds 127.0.0.1 in protected mode; ClickHouse listens on 127.0.0.1 only,
// opens no port but the native one, and lets its user in from loopback
// only. Neither has a password (they are development and test servers), so
// an address anyone else can reach would be an open database.
func TestScriptsBindLoopback(t *testing.T) {
	root := testenv.ModuleRoot(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, "scripts", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, p := range loopbackProblems(read("redis.sh"), read("clickhouse.sh")) {
		t.Error(p)
	}
}

// loopbackProblems lists what in the two scripts' configurations would let
// anyone but this machine in.
func loopbackProblems(redis, ch string) []string {
	var out []string
	errorf := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	binds := regexp.MustCompile(`(?m)^\s*bind\s+(.+)$`).FindAllStringSubmatch(redis, -1)
	if len(binds) == 0 {
		errorf("redis.sh writes no bind line: Redis would listen on every interface")
	}
	for _, b := range binds {
		if !loopbackOnly(strings.Fields(b[1])) {
			errorf("redis.sh binds %q", b[1])
		}
	}
	if !regexp.MustCompile(`(?m)^\s*protected-mode yes$`).MatchString(redis) {
		errorf("redis.sh does not keep protected-mode on")
	}
	hosts := regexp.MustCompile(`<listen_host>([^<]*)</listen_host>`).FindAllStringSubmatch(ch, -1)
	if len(hosts) == 0 {
		errorf("clickhouse.sh writes no listen_host: ClickHouse would listen on every interface")
	}
	for _, h := range hosts {
		if !loopbackOnly([]string{h[1]}) {
			errorf("clickhouse.sh listens on %q", h[1])
		}
	}
	for _, p := range regexp.MustCompile(`<([a-z_]*port)>`).FindAllStringSubmatch(ch, -1) {
		if p[1] != "tcp_port" {
			errorf("clickhouse.sh opens %s as well as the native port", p[1])
		}
	}
	for _, n := range regexp.MustCompile(`<ip>([^<]*)</ip>`).FindAllStringSubmatch(ch, -1) {
		if !loopbackOnly([]string{n[1]}) {
			errorf("clickhouse.sh lets its user in from %q", n[1])
		}
	}
	return out
}

// TestTestRedisBindsLoopback asks the Redis the tests run against (started
// by scripts/testenv.sh through redis.sh) what it binds: the script's
// configuration as the server took it.
func TestTestRedisBindsLoopback(t *testing.T) {
	rdb := testenv.Redis(t)
	got, err := rdb.ConfigGet(context.Background(), "bind").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !loopbackOnly(strings.Fields(got["bind"])) {
		t.Fatalf("the test Redis binds %q", got["bind"])
	}
}
