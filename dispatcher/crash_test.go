package dispatcher

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// helperEnv tells the test binary, run again as a subprocess, to be a
// dispatcher on the Redis database it names.
const (
	helperEnv         = "DISPATCHER_TEST_HELPER_REDIS"
	helperConsumerEnv = "DISPATCHER_TEST_HELPER_CONSUMER"
	helperTimeout     = 2 * time.Second
)

// TestHelperDispatcher is not a test: it is the dispatcher process the crash
// tests start and kill.
func TestHelperDispatcher(t *testing.T) {
	raw := os.Getenv(helperEnv)
	if raw == "" {
		t.Skip("the dispatcher subprocess of the crash tests")
	}
	opt, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	cfg := testConfig()
	cfg.Timeout = helperTimeout
	cfg.Consumer = os.Getenv(helperConsumerEnv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	d, err := New(cfg, rdb, AccountKeys(merchant.NewStore(rdb).Get, merchant.NewStore(rdb).EnsureWebhookSecret), prometheus.NewRegistry(),
		slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	eps, err := events.NewStore(events.Defaults(), rdb, NewDestinations(true), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.WithEndpoints(eps)
	if err := d.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// helper is a dispatcher subprocess.
type helper struct {
	name   string
	cmd    *exec.Cmd
	logs   *syncBuffer
	exited chan struct{} // closed once the process is gone
	err    error         // its exit, once exited is closed
}

func startHelper(t *testing.T, e *env, name string) *helper {
	t.Helper()
	h := &helper{name: name, logs: &syncBuffer{}, exited: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperDispatcher$", "-test.count=1")
	h.cmd.Env = append(os.Environ(), helperEnv+"="+testenv.RedisURLFor(e.rdb), helperConsumerEnv+"="+name)
	h.cmd.Stdout, h.cmd.Stderr = h.logs, h.logs
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		h.err = h.cmd.Wait()
		close(h.exited)
	}()
	t.Cleanup(func() {
		h.kill()
		if t.Failed() {
			t.Logf("dispatcher process %s:\n%s", name, h.logs.String())
		}
	})
	return h
}

// kill is kill -9: no deferred function, no cleanup, leases left behind.
func (h *helper) kill() {
	// An error means the process is already gone, which is what kill wants.
	_ = h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.exited
}

// alive reports whether the process is still running.
func (h *helper) alive() bool {
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// waitRunning waits until the process logs that Run created its groups and
// started its loops, and fails the test if it exits first: a dispatcher that
// died at start would make "nothing was sent" mean nothing.
func (h *helper) waitRunning(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, 20*time.Second, "dispatcher "+h.name+" running", func() bool {
		if !h.alive() {
			t.Fatalf("dispatcher %s exited before running: %v\n%s", h.name, h.err, h.logs.String())
		}
		return strings.Contains(h.logs.String(), `"msg":"dispatcher running"`)
	})
}

func TestKilledDuringDeliveryIsDeliveredOnceAfterRestart(t *testing.T) {
	e := newEnv(t)
	first := make(chan struct{})
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			close(first)
			<-r.Context().Done() // hangs until the caller is gone
			return
		}
		_, _ = w.Write([]byte("success"))
	})
	o := e.pay(rc.URL)

	a := startHelper(t, e, "a")
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("the first attempt never arrived")
	}
	a.kill()

	b := startHelper(t, e, "b")
	testenv.Eventually(t, 20*time.Second, "delivered by the restarted dispatcher", func() bool {
		st, err := e.rdb.HGet(context.Background(), webhookKey(o.ID), "st").Result()
		return err == nil && st == StateDelivered
	})
	if rc.count() != 2 {
		t.Fatalf("receiver called %d times, want 2 (the killed attempt and its replacement)", rc.count())
	}
	b.kill()

	// After a recorded success, never again: not from a restart either. The
	// restart is shown to be a working dispatcher: it stays up through the
	// wait, and then delivers an order of its own.
	c := startHelper(t, e, "c")
	c.waitRunning(t)
	time.Sleep(helperTimeout + time.Second)
	if !c.alive() {
		t.Fatalf("dispatcher c exited during the wait: %v", c.err)
	}
	if rc.count() != 2 {
		t.Fatalf("receiver called %d times after the success, want 2", rc.count())
	}
	fresh := newReceiver(t, answer(200, "success"))
	o2 := e.pay(fresh.URL)
	testenv.Eventually(t, 20*time.Second, "a new order delivered by dispatcher c", func() bool {
		st, err := e.rdb.HGet(context.Background(), webhookKey(o2.ID), "st").Result()
		return err == nil && st == StateDelivered
	})
	if fresh.count() != 1 || rc.count() != 2 {
		t.Fatalf("dispatcher c called the new order's receiver %d times (want 1) and the old one's %d (want 2)",
			fresh.count(), rc.count())
	}
	c.kill()
	shard, _ := schema.ParseOrderID(o.ID)
	log, err := e.rdb.LRange(context.Background(), schema.WebhookLogKey(shard, o.ID), 0, -1).Result()
	if err != nil || len(log) != 1 {
		t.Fatalf("log %v, %v: want the one recorded attempt (the killed one never finished)", log, err)
	}
}

func TestEntriesOfADeadConsumerAreTakenOver(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, answer(200, "success"))
	ctx := context.Background()
	o := e.paidOrder(rc.URL)
	shard, _ := schema.ParseOrderID(o.ID)
	stream := schema.EventsKey(shard)
	if err := e.rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err(); err != nil {
		t.Fatal(err)
	}
	e.publish(o, schema.EventPaid)
	// A consumer reads the paid event and dies before scheduling it.
	got, err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "ghost", Streams: []string{stream, ">"}, Count: 10}).Result()
	if err != nil || len(got) != 1 || len(got[0].Messages) != 1 {
		t.Fatalf("ghost read %v, %v", got, err)
	}

	cfg := testConfig()
	cfg.ClaimIdle = 300 * time.Millisecond
	d := e.start(cfg)
	testenv.Eventually(t, 10*time.Second, "delivered", func() bool { return e.state(d, o.ID) == StateDelivered })
	testenv.Eventually(t, 5*time.Second, "entry acknowledged", func() bool {
		p, err := e.rdb.XPending(ctx, stream, group).Result()
		return err == nil && p.Count == 0
	})
	if rc.count() != 1 {
		t.Fatalf("receiver called %d times", rc.count())
	}
}

func webhookKey(id string) string {
	shard, _ := schema.ParseOrderID(id)
	return schema.WebhookKey(shard, id)
}
