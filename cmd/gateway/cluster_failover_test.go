package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestClusterFailover runs under `make test-cluster`: a gateway with every
// role over Redis Cluster while the master owning slot 0, which is also the
// first address of GATEWAY_REDIS_URL (the seed), is killed -9 and its
// replica takes over. Probes on every shard (a sandbox wallet_a create,
// action=order, the payer's page and status poll) measure the time from the kill to
// their first success; each must work again within failoverBudget of the
// promotion. Creates in flight may fail; every create answered 200 must
// still exist afterwards (ReplicaWait makes an answered write wait for the
// replica), no role may still be reaching for the dead node, and the
// projector and dispatcher go on by themselves.
func TestClusterFailover(t *testing.T) {
	dir := testenv.RedisClusterDir(t)
	e := newE2E(t)
	seed, err := redis.ParseClusterURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	victimAddr, witnessAddr := seed.Addrs[0], seed.Addrs[1]
	_, victim, _ := strings.Cut(victimAddr, ":")
	witness := redis.NewClient(&redis.Options{Addr: witnessAddr})
	defer witness.Close()
	ctx := context.Background()
	makeMaster(t, victimAddr, witness)
	if owner, err := slotOwner(ctx, witness, 0); err != nil || owner != victimAddr {
		t.Fatalf("slot 0 is served by %q (%v), not by the seed's first address %s", owner, err, victimAddr)
	}
	victimShards := shardsOn(t, witness, victimAddr)

	e.run("migrate")
	hooks := newHookReceiver(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--callback", hooks.url, "--sandbox", "--json")
	e.run("merchant", "limits", shop.AppID, "--create", "100000/s:100000", "--query", "100000/s:100000")
	s := e.serve("GATEWAY_ROLES="+strings.Join(platform.AllRoles, ","), "GATEWAY_RATE_PAGES=100000/s:100000")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gateway log:\n%s", lastLines(s.logs.String(), 60))
		}
	})

	client := &http.Client{Timeout: 10 * time.Second}
	ids := map[schema.Shard]string{}
	for _, shard := range schema.AllShards() {
		id, err := createOn(client, s, shop, shard, -1)
		if err != nil {
			t.Fatalf("create on shard %d before the kill: %v", shard, err)
		}
		ids[shard] = id
	}
	probe := startFailoverProbe(t, s, shop, ids)
	load := startCreateLoad(t, s, shop, 4)
	load.waitFor(t, 200)

	killedAt := time.Now()
	probe.kill(killedAt)
	kill := exec.Command(filepath.Join("..", "..", "scripts", "redis-cluster.sh"), "kill", dir, victim)
	if out, err := kill.CombinedOutput(); err != nil {
		t.Fatalf("kill master %s: %v\n%s", victimAddr, err, out)
	}
	t.Logf("killed master %s (slot 0, seed's first address; shards %v) after %d creates", victimAddr, victimShards, load.ok())
	var promoted time.Duration
	testenv.Eventually(t, 30*time.Second, "condition", func() bool {
		owner, err := slotOwner(ctx, witness, 0)
		promoted = time.Since(killedAt)
		return err == nil && owner != victimAddr
	})
	// Every path on every shard works again; generous here so that a slow
	// recovery is measured and reported rather than cut short.
	testenv.Eventually(t, 90*time.Second, "condition", func() bool { return probe.recovered(schema.NumShards) })
	var worst time.Duration
	figures := []string{fmt.Sprintf("kill to promotion %v", promoted.Round(10*time.Millisecond))}
	for _, path := range probePaths {
		first, every := probe.worst(path, schema.AllShards())
		_, victims := probe.worst(path, victimShards)
		worst = max(worst, every)
		figures = append(figures, fmt.Sprintf("%s: first success %v, every shard %v (the killed master's shards %v)",
			path, first.Round(10*time.Millisecond), every.Round(10*time.Millisecond), victims.Round(10*time.Millisecond)))
	}
	t.Logf("FAILOVER %s\n%s", strings.Join(figures, "; "), probe.report())
	if worst > promoted+failoverBudget {
		t.Errorf("a path took %v after the kill, %v after the promotion: the budget is %v", worst, worst-promoted, failoverBudget)
	}
	// Background roles (consumers, expirer, reviewer, refund recovery) run
	// on their own clocks: give them a few more seconds, then none may
	// still log errors about the dead node.
	time.Sleep(failoverBudget)
	if lines := loggedAfter(s.logs.String(), killedAt.Add(promoted+failoverBudget), victimAddr); len(lines) > 0 {
		t.Errorf("%d log lines about the dead node %s more than %v after the promotion, e.g.\n%s",
			len(lines), victimAddr, failoverBudget, strings.Join(lines[:min(5, len(lines))], "\n"))
	}
	probe.stop()
	answered, failed := load.stop()
	answered = append(answered, probe.answered...)
	t.Logf("creates answered 200: %d, failed during the failover: %d", len(answered), failed)
	restartNode(t, dir, victim)

	rdb := testenv.Client(t, e.redisURL)
	lost := 0
	for _, id := range answered {
		shard, _ := schema.ParseOrderID(id)
		if n, err := rdb.Exists(ctx, schema.OrderKey(shard, id)).Result(); err != nil || n != 1 {
			lost++
			if lost < 5 {
				t.Errorf("answered order %s is gone (exists=%d, err=%v)", id, n, err)
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d answered creates lost in the failover", lost, len(answered))
	}
	// Creates whose answer was lost in the failover may exist too (failing
	// is allowed, losing is not): every answered order must be projected.
	testenv.Eventually(t, 60*time.Second, "condition", func() bool {
		missing := unprojected(t, e.chDSN, shop.AppID, answered)
		if missing > 0 {
			t.Logf("%d of %d answered orders not in ClickHouse yet", missing, len(answered))
		}
		return missing == 0
	})
	// The simulator's state and the dispatcher on a shard the dead master
	// held: a sandbox payment gets its webhook.
	id := ids[victimShards[0]]
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay after the failover: %+v", r)
	}
	testenv.Eventually(t, 30*time.Second, "condition", func() bool { return hooks.got(id) != nil })
}

// failoverBudget is how long after the promotion every path must work
// again: the requirement for a Redis Cluster master's loss.
const failoverBudget = 5 * time.Second

// makeMaster turns addr back into a master (CLUSTER FAILOVER) when an
// earlier failover left it a replica, so the test always kills the seed's
// first address while it serves slots.
func makeMaster(t *testing.T, addr string, witness *redis.Client) {
	t.Helper()
	ctx := context.Background()
	node := redis.NewClient(&redis.Options{Addr: addr})
	defer node.Close()
	info, err := node.Info(ctx, "replication").Result()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(info, "role:master") {
		return
	}
	if err := node.ClusterFailover(ctx).Err(); err != nil {
		t.Fatalf("CLUSTER FAILOVER on %s: %v", addr, err)
	}
	testenv.Eventually(t, 30*time.Second, "condition", func() bool {
		owner, err := slotOwner(ctx, witness, 0)
		return err == nil && owner == addr
	})
}

// shardsOn lists the shards whose keys addr serves.
func shardsOn(t *testing.T, node *redis.Client, addr string) []schema.Shard {
	t.Helper()
	ctx := context.Background()
	var out []schema.Shard
	for _, s := range schema.AllShards() {
		slot, err := node.ClusterKeySlot(ctx, schema.EventsKey(s)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if owner, err := slotOwner(ctx, node, int(slot)); err == nil && owner == addr {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no shard on %s", addr)
	}
	return out
}

// loggedAfter returns the gateway's JSON log lines stamped after since
// that mention addr.
func loggedAfter(logs string, since time.Time, addr string) []string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, addr) {
			continue
		}
		var rec struct {
			Time time.Time `json:"time"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Time.After(since) {
			out = append(out, line)
		}
	}
	return out
}

// createLoad creates orders from several goroutines until stopped, keeping
// the ids answered 200 and counting the rest.
type createLoad struct {
	mu       sync.Mutex
	answered []string
	failed   int
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func startCreateLoad(t *testing.T, s *server, shop account, workers int) *createLoad {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &createLoad{cancel: cancel}
	client := &http.Client{Timeout: 10 * time.Second}
	for w := 0; w < workers; w++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for ctx.Err() == nil {
				id, err := createOnce(client, s, shop)
				l.mu.Lock()
				if err != nil {
					l.failed++
				} else {
					l.answered = append(l.answered, id)
				}
				l.mu.Unlock()
				if err != nil {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	t.Cleanup(func() { l.stop() })
	return l
}

func createOnce(client *http.Client, s *server, shop account) (string, error) {
	return postCreate(client, s, shop, createParams(shop.AppID))
}

func (l *createLoad) ok() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.answered)
}

func (l *createLoad) waitFor(t *testing.T, n int) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, "condition", func() bool { return l.ok() >= n })
}

func (l *createLoad) stop() ([]string, int) {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.answered, l.failed
}

// restartNode brings the killed master back; it rejoins as a replica of
// the node that took its place, so the next test has a whole cluster.
func restartNode(t *testing.T, dir, port string) {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "redis.sh"), "start", filepath.Join(dir, "node-"+port), port)
	cmd.Env = append(os.Environ(), "REDIS_CLUSTER=yes")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("restart node %s: %v\n%s", port, err, out)
	}
	p, _ := strconv.Atoi(port)
	node := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p)})
	defer node.Close()
	testenv.Eventually(t, 30*time.Second, "condition", func() bool {
		info, err := node.ClusterInfo(context.Background()).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok")
	})
}

// unprojected counts the ids not in ClickHouse's orders table (the
// Distributed one on a ClickHouse cluster).
func unprojected(t *testing.T, dsn, appid string, ids []string) int {
	t.Helper()
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	rows, err := ch.Query(context.Background(), "SELECT id FROM orders WHERE appid = ? GROUP BY id", appid)
	if err != nil {
		t.Logf("read ClickHouse: %v", err)
		return len(ids)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		seen[id] = true
	}
	n := 0
	for _, id := range ids {
		if !seen[id] {
			n++
		}
	}
	return n
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
