package platform

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

func TestWritesCountedAsWrites(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		cmd  redis.Cmder
		want bool
	}{
		{"hset", redis.NewIntCmd(ctx, "hset", "k", "f", "v"), true},
		{"evalsha of an order script", redis.NewCmd(ctx, "evalsha", "0123", 1, "k"), true},
		{"evalsha of the rate limiter", redis.NewCmd(ctx, "evalsha", rateLimitSHA, 1, "k"), false},
		{"hmget", redis.NewSliceCmd(ctx, "hmget", "k", "a"), false},
		{"xadd", redis.NewStringCmd(ctx, "xadd", "s", "*", "a", "b"), true},
		{"wait itself", redis.NewIntCmd(ctx, "wait", 1, 100), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := writes(c.cmd); got != c.want {
				t.Fatalf("writes(%s) = %v, want %v", c.name, got, c.want)
			}
		})
	}
}

// TestClusterReplicaWait: on a cluster every write waits for its replica,
// one WAIT per pipeline, and a write whose replica cannot acknowledge in
// time is still answered, and counted.
func TestClusterReplicaWait(t *testing.T) {
	testenv.RedisClusterURL(t) // skips, or fails when the cluster was required
	seed := testenv.RedisURL(t)
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	w := NewReplicaWait(1, 300*time.Millisecond, reg)
	c, err := OpenRedis(ctx, seed, true, WithReplicaWait(w))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if err := c.Set(ctx, "rw:{a}:1", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	waits := func() uint64 { return histogramCount(t, reg, "gateway_redis_replica_wait_seconds") }
	if waits() != 1 {
		t.Fatalf("one write waited %d times", waits())
	}
	before := waits()
	_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 10; i++ {
			p.Set(ctx, "rw:{a}:p", i, 0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := waits() - before; got != 1 {
		t.Fatalf("a pipeline of 10 writes to one node waited %d times, want once", got)
	}
	before = waits()
	if err := c.Get(ctx, "rw:{a}:1").Err(); err != nil {
		t.Fatal(err)
	}
	if waits() != before {
		t.Fatal("a read waited for a replica")
	}

	// A transaction goes through untouched (its reply must end with EXEC).
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "rw:{a}:t", "1", 0)
		p.Incr(ctx, "rw:{a}:u")
		return nil
	}); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	if v, err := c.Get(ctx, "rw:{a}:u").Result(); err != nil || v != "1" {
		t.Fatalf("after the transaction: %q, %v", v, err)
	}

	// The replica of {b}'s master is stopped (SIGSTOP): the write is
	// answered after the time-out, and counted as unreplicated.
	pid := serverPID(t, replicaOf(t, c, "rw:{b}:1"))
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	err = c.Set(ctx, "rw:{b}:1", "x", 0).Err()
	_ = syscall.Kill(pid, syscall.SIGCONT)
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(w.unreplicated); got != 1 {
		t.Fatalf("unreplicated writes = %v, want 1", got)
	}
}

func serverPID(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "process_id:"); ok {
			pid, err := strconv.Atoi(v)
			if err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no process_id in INFO server")
	return 0
}

func histogramCount(t *testing.T, reg *prometheus.Registry, name string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	return 0
}

// replicaOf is a client on the replica of the master serving key.
func replicaOf(t *testing.T, c redis.UniversalClient, key string) *redis.Client {
	t.Helper()
	ctx := context.Background()
	slot, err := c.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 1 {
			r := redis.NewClient(&redis.Options{Addr: s.Nodes[1].Addr})
			t.Cleanup(func() { _ = r.Close() })
			return r
		}
	}
	t.Fatalf("no replica serves slot %d", slot)
	return nil
}
