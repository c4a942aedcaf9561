package main

import (
	"bytes"
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

// TestClusterFailover runs under `make test-cluster`: a steady create load
// on a gateway over Redis Cluster while one master is killed -9 and its
// replica takes over. Creates in flight may fail; every create that was
// answered 200 must still exist afterwards (ReplicaWait makes an answered
// write wait for the replica), and the projector and dispatcher must go on
// by themselves: every answered order reaches the listing, and a payment
// made after the failover gets its webhook.
func TestClusterFailover(t *testing.T) {
	dir := testenv.RedisClusterDir(t)
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	rdb := testenv.Client(t, e.redisURL)
	e.run("migrate")
	hooks := newHookReceiver(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--callback", hooks.url, "--sandbox", "--json")
	e.run("merchant", "limits", shop.AppID, "--create", "100000/s:100000", "--query", "100000/s:100000")
	s := e.serve()

	load := startCreateLoad(t, s, shop, 4)
	load.waitFor(t, 200)
	victim := masterOf(t, rdb, schema.EventsKey(schema.AllShards()[0]))
	kill := exec.Command(filepath.Join("..", "..", "scripts", "redis-cluster.sh"), "kill", dir, victim)
	if out, err := kill.CombinedOutput(); err != nil {
		t.Fatalf("kill master %s: %v\n%s", victim, err, out)
	}
	t.Logf("killed master 127.0.0.1:%s after %d creates", victim, load.ok())
	killedAt := load.ok()
	// Creates succeed again once the replica has taken the slots over.
	load.waitFor(t, killedAt+500)
	answered, failed := load.stop()
	t.Logf("creates answered 200: %d, failed during the failover: %d", len(answered), failed)
	restartNode(t, dir, victim)

	ctx := context.Background()
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
	// The consumers resumed: every answered order is listed, and a payment
	// now gets its webhook.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gateway log:\n%s", lastLines(s.logs.String(), 60))
		}
	})
	// Creates whose answer was lost in the failover may exist too (failing
	// is allowed, losing is not): every answered order must be projected.
	eventually(t, 60*time.Second, func() bool {
		missing := unprojected(t, e.chDSN, shop.AppID, answered)
		if missing > 0 {
			t.Logf("%d of %d answered orders not in ClickHouse yet", missing, len(answered))
		}
		return missing == 0
	})
	id := answered[len(answered)-1]
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay after the failover: %+v", r)
	}
	eventually(t, 30*time.Second, func() bool { return hooks.got(id) != nil })
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
	p := createParams(shop.AppID)
	p["sign"] = schema.Sign(p, shop.APIKey)
	body, _ := json.Marshal(p)
	res, err := client.Post(s.base+"/api/createorder", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var r apiResponse
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("create: %d %v", res.StatusCode, err)
	}
	id, _ := r.Data["paymentId"].(string)
	return id, nil
}

func (l *createLoad) ok() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.answered)
}

func (l *createLoad) waitFor(t *testing.T, n int) {
	t.Helper()
	eventually(t, 60*time.Second, func() bool { return l.ok() >= n })
}

func (l *createLoad) stop() ([]string, int) {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.answered, l.failed
}

// masterOf is the port of the master serving key's slot.
func masterOf(t *testing.T, rdb redis.UniversalClient, key string) string {
	t.Helper()
	ctx := context.Background()
	slot, err := rdb.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) {
			_, port, _ := strings.Cut(s.Nodes[0].Addr, ":")
			return port
		}
	}
	t.Fatalf("no master serves slot %d", slot)
	return ""
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
	eventually(t, 30*time.Second, func() bool {
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
