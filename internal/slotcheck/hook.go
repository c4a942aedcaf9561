package slotcheck

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Checker is a go-redis hook that records every command that Redis Cluster
// would refuse (CROSSSLOT) or that walks the whole keyspace.
type Checker struct {
	mu     sync.Mutex
	faults []string
	seen   int  // scripts and multi-key commands checked
	tests  bool // check the calls test code makes too (this package's tests)
}

// Install adds a Checker to rdb and fails t at its end if any command rdb
// sent would not run on a cluster.
func Install(t testing.TB, rdb redis.UniversalClient) *Checker {
	t.Helper()
	c := &Checker{}
	rdb.AddHook(c)
	t.Cleanup(func() {
		for _, f := range c.Faults() {
			t.Errorf("not cluster-safe: %s", f)
		}
	})
	return c
}

// Faults lists what was recorded, in order.
func (c *Checker) Faults() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.faults...)
}

// Checked is how many scripts, multi-key commands and transactions were
// checked: a test can tell that its calls went through the hook.
func (c *Checker) Checked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

// DialHook implements redis.Hook.
func (c *Checker) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

// ProcessHook implements redis.Hook.
func (c *Checker) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.check(cmd.Args())
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook: each command of a pipeline on
// its own, and a MULTI/EXEC's keys together.
func (c *Checker) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if c.exempt("") {
			return next(ctx, cmds)
		}
		var tx []string
		inTx := false
		for _, cmd := range cmds {
			switch cmd.Name() {
			case "multi":
				inTx, tx = true, nil
			case "exec":
				c.same("MULTI/EXEC", tx, nil)
				inTx = false
			default:
				c.check(cmd.Args())
				if inTx {
					tx = append(tx, keysOf(cmd.Args())...)
				}
			}
		}
		return next(ctx, cmds)
	}
}

func (c *Checker) check(args []any) {
	if len(args) == 0 {
		return
	}
	name := strings.ToLower(fmt.Sprint(args[0]))
	if c.exempt(name) {
		return
	}
	switch name {
	case "keys", "scan":
		c.fault(name + " walks the whole keyspace")
		return
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		keys, rest := scriptKeys(args)
		c.same(name, keys, prefixes(rest))
		return
	}
	if keys := keysOf(args); len(keys) > 1 {
		c.same(name, keys, nil)
	}
}

// same records a fault unless keys, and the key prefixes a script builds
// more keys from, all hash to one slot.
func (c *Checker) same(what string, keys, prefixes []string) {
	c.mu.Lock()
	c.seen++
	c.mu.Unlock()
	all := append(append([]string(nil), keys...), prefixes...)
	for _, k := range all[min(1, len(all)):] {
		if Slot(k) != Slot(all[0]) {
			c.fault(fmt.Sprintf("%s over %q (slot %d) and %q (slot %d)", what, all[0], Slot(all[0]), k, Slot(k)))
			return
		}
	}
}

func (c *Checker) fault(f string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, f)
}

// exempt tells the calls the check is not about: those a test makes itself
// (a test may list its own database's keys), and the consumer's reads over
// several streams, which it makes only on a single node and splits per
// stream on a cluster (platform.Consumer; its cluster test covers that),
// and the fault suite's audit (chaos), an offline tool that walks the
// whole keyspace of a single test Redis on purpose.
func (c *Checker) exempt(name string) bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		switch {
		case strings.Contains(f.Function, "github.com/redis/go-redis/"),
			strings.Contains(f.Function, "/internal/slotcheck.") && !strings.HasSuffix(f.File, "_test.go"):
		case strings.HasSuffix(f.File, "_test.go"):
			return !c.tests
		case strings.Contains(f.Function, "github.com/paygate/gateway/chaos."):
			return true
		default:
			return (name == "xreadgroup" || name == "xread") && strings.Contains(f.Function, "gateway/platform.(*Consumer)")
		}
		if !more {
			return false
		}
	}
}

// scriptKeys splits EVAL-like arguments into KEYS and ARGV.
func scriptKeys(args []any) (keys, argv []string) {
	if len(args) < 3 {
		return nil, nil
	}
	n, _ := strconv.Atoi(fmt.Sprint(args[2]))
	for i, a := range args[3:] {
		if i < n {
			keys = append(keys, fmt.Sprint(a))
		} else {
			argv = append(argv, fmt.Sprint(a))
		}
	}
	return keys, argv
}

// prefixes are the arguments that name a key of ours, usually a prefix a
// script completes (an order key from its id): a script touching keys it
// was not given is cluster-safe only while they share its KEYS' slot.
func prefixes(argv []string) []string {
	var out []string
	for _, a := range argv {
		if strings.HasPrefix(a, "gw:{") {
			out = append(out, a)
		}
	}
	return out
}

// keysOf names the keys of the multi-key commands we might send; for any
// other command the first argument, which is enough inside a MULTI.
func keysOf(args []any) []string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprint(a)
	}
	if len(s) < 2 {
		return nil
	}
	switch strings.ToLower(s[0]) {
	case "del", "unlink", "exists", "mget", "touch", "watch", "sunion", "sinter", "sdiff", "pfcount", "pfmerge",
		"sunionstore", "sinterstore", "sdiffstore":
		return s[1:]
	case "mset", "msetnx":
		var out []string
		for i := 1; i < len(s); i += 2 {
			out = append(out, s[i])
		}
		return out
	case "rename", "renamenx", "rpoplpush", "smove", "lmove", "blmove", "copy", "brpoplpush":
		return s[1:min(3, len(s))]
	case "blpop", "brpop", "bzpopmin", "bzpopmax":
		return s[1 : len(s)-1]
	case "xread", "xreadgroup":
		for i, a := range s {
			if strings.EqualFold(a, "streams") {
				rest := s[i+1:]
				return rest[:len(rest)/2]
			}
		}
		return nil
	case "ping", "select", "script", "info", "cluster", "client", "hello", "auth", "flushdb", "flushall", "config",
		"time", "dbsize", "readonly", "command":
		return nil
	}
	return s[1:2]
}
