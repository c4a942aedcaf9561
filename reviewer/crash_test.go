package reviewer

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// The test binary, run again as a subprocess, is a reviewer on the Redis
// database helperRedisEnv names, with the order helperOrderEnv holds (JSON)
// in its fake order store, and a chain that hangs.
const (
	helperRedisEnv = "REVIEWER_TEST_HELPER_REDIS"
	helperOrderEnv = "REVIEWER_TEST_HELPER_ORDER"
	helperLease    = 5 * time.Second
	blockedMark    = "HELPER CHAIN CALL BLOCKED"
)

// TestHelperReviewer is not a test: it is the reviewer process the crash
// test starts and kills. Its chain call never returns, whatever its
// context says (a hung process), so it dies holding its lease.
func TestHelperReviewer(t *testing.T) {
	raw := os.Getenv(helperRedisEnv)
	if raw == "" {
		t.Skip("the reviewer subprocess of the crash test")
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	var o schema.Order
	if err := json.Unmarshal([]byte(os.Getenv(helperOrderEnv)), &o); err != nil {
		t.Fatal(err)
	}
	orders := newFakeOrders(rdb)
	orders.put(&o)
	chain := newFakeChain()
	chain.block = make(chan struct{})
	chain.onEnter = func(hash string) { fmt.Fprintln(os.Stderr, blockedMark, hash) }
	cfg := testConfig()
	// One slot: once its review hangs, the helper claims nothing else, so
	// the other orders of the test are the second reviewer's.
	cfg.Lease, cfg.Timeout, cfg.Batch = helperLease, 500*time.Millisecond, 1
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	r, err := New(cfg, Deps{Redis: rdb, Orders: orders, Networks: &fakeNetworks{nets: map[string]usdt.Network{trc20.Name: trc20}},
		Backends: &fakeBackends{chains: map[string]*fakeChain{trc20.Name: chain}}}, prometheus.NewRegistry(),
		slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestKilledMidReviewIsCompletedOnceByAnother: a reviewer is killed with
// kill -9 in the middle of a review. While its lease holds, another
// reviewer, working meanwhile, leaves that order alone; after the lease it
// takes the review over and completes it, and exactly one outcome lands.
func TestKilledMidReviewIsCompletedOnceByAnother(t *testing.T) {
	e := newEnv(t)
	o := e.newOrder(trc20.Name, "9.876543", "0xkilled")
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperReviewer$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperRedisEnv+"="+testenv.RedisURLFor(e.rdb), helperOrderEnv+"="+string(raw))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	kill := func() {
		_ = cmd.Process.Signal(syscall.SIGKILL) // an error means it is gone already
		<-exited
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			kill()
		}
		if t.Failed() {
			t.Logf("helper reviewer:\n%s", logs.String())
		}
	})
	testenv.Eventually(t, 20*time.Second, "the helper blocked in its review", func() bool {
		return strings.Contains(logs.String(), blockedMark+" "+o.TxHash)
	})

	// The second reviewer runs while the helper holds the lease: it reviews
	// another order, and must not touch the leased one until the helper is
	// dead and its lease has run out.
	var killed, early atomic.Bool
	e.chain(trc20.Name).onEnter = func(hash string) {
		if hash == o.TxHash && !killed.Load() {
			early.Store(true)
		}
	}
	e.chain(trc20.Name).set(goodTx(t, o, trc20), nil)
	other := e.newOrder(trc20.Name, "1.234567", "0xother")
	e.chain(trc20.Name).set(goodTx(t, other, trc20), nil)
	b := e.start(testConfig(), nil)
	e.decided(other.ID)
	killed.Store(true)
	kill()
	if early.Load() {
		t.Fatal("the second reviewer reviewed the order while the helper held its lease")
	}

	got := e.decided(o.ID)
	if got.Outcome != "approve" || got.D.By != b.ID() {
		t.Fatalf("outcome %+v, want approved by the second reviewer %s", got, b.ID())
	}
	// Whatever comes later, no second outcome: give the second reviewer
	// another order to finish, then count.
	third := e.newOrder(trc20.Name, "2.222222", "0xthird")
	e.chain(trc20.Name).set(goodTx(t, third, trc20), nil)
	e.decided(third.ID)
	if n := len(e.outcomesOf(o.ID)); n != 1 {
		t.Fatalf("%d outcomes landed for the killed review, want exactly 1", n)
	}
	if len(e.outcomes()) != 3 {
		t.Fatalf("outcomes %+v, want three (one per order)", e.outcomes())
	}
}
