package projector

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// helperBatchSize is the batch size of the projector the test below kills.
const helperBatchSize = 100

// TestKilledBetweenInsertAndAck kills -9 a projector process right after
// ClickHouse confirmed its insert and before it acknowledged, then lets
// another projector take over: every order is listed once, in its final
// state. What may be inserted twice is the batch in flight when it died,
// each of its rows once more, and nothing else.
func TestKilledBetweenInsertAndAck(t *testing.T) {
	e := newEnv(t)
	want := e.emitLife("p-kill", 200)
	events := 2 * len(want)
	marker := filepath.Join(t.TempDir(), "inserted")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProjectorProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "PROJECTOR_HELPER=1", "PROJECTOR_MARKER="+marker,
		"PROJECTOR_REDIS_URL="+testenv.RedisURLFor(e.rdb), "PROJECTOR_CLICKHOUSE_DSN="+e.dsn)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the helper's first insert", func() bool { _, err := os.Stat(marker); return err == nil })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error is the signal
	raw, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	inFlight, err := strconv.Atoi(string(raw))
	if err != nil {
		t.Fatalf("marker %q: %v", raw, err)
	}
	// A batch is flushed once a read takes it to BatchSize, and one read asks
	// each shard's stream for BatchSize/NumShards+1 entries: a batch holds at
	// most BatchSize plus one read.
	if maxBatch := helperBatchSize + schema.NumShards*(helperBatchSize/schema.NumShards+1); inFlight < 1 || inFlight > maxBatch {
		t.Fatalf("the killed projector's batch held %d events, want 1 to %d", inFlight, maxBatch)
	}
	if e.pending() == 0 {
		t.Fatalf("the killed projector acknowledged before dying:\n%s", out)
	}
	if n := total(e.insertions("p-kill")); n == 0 || n > inFlight {
		t.Fatalf("the killed projector left %d rows; its one insert held %d events", n, inFlight)
	}
	e.start(testConfig("successor"), NewClickHouse(e.ch))
	e.waitListed("p-kill", want, 15*time.Second)
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })

	// Allowed: every event inserted once by whoever acknowledged it, and the
	// killed batch's events once more, so no event more than twice and at
	// most events+inFlight rows. No lower bound on rows: ReplacingMergeTree
	// may collapse an order's versions when it merges parts (or on insert),
	// so the lower bound is what waitListed checked: every order listed
	// once, in its final version, under FINAL.
	ins := e.insertions("p-kill")
	twice := 0
	for k, n := range ins {
		if n > 2 {
			t.Fatalf("%s v%d inserted %d times", k.id, k.version, n)
		}
		if n == 2 {
			twice++
		}
	}
	if rows := total(ins); rows > events+inFlight || twice > inFlight {
		t.Fatalf("%d rows (%d events inserted twice) for %d events; at most the %d of the killed batch may be inserted twice",
			rows, twice, events, inFlight)
	}
	t.Logf("%d rows for %d orders (%d events, %d in the killed batch): re-inserted rows collapse under FINAL",
		total(ins), len(want), events, inFlight)
}

// TestHelperProjectorProcess is the projector the test above kills; it only
// runs as that subprocess.
func TestHelperProjectorProcess(t *testing.T) {
	if os.Getenv("PROJECTOR_HELPER") != "1" {
		t.Skip("runs only as the subprocess of TestKilledBetweenInsertAndAck")
	}
	ctx := context.Background()
	rdb, err := platform.OpenRedis(ctx, os.Getenv("PROJECTOR_REDIS_URL"), false)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(os.Getenv("PROJECTOR_CLICKHOUSE_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	sink := &stallAfterInsert{Sink: NewClickHouse(ch), marker: os.Getenv("PROJECTOR_MARKER")}
	cfg := testConfig("doomed")
	cfg.BatchSize = helperBatchSize
	p, err := New(cfg, rdb, sink, prometheus.NewRegistry(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Run(ctx)
}

// stallAfterInsert inserts, announces it with the number of events
// inserted, and never returns: the window
// between ClickHouse's confirmation and the XACK, held open for the kill.
type stallAfterInsert struct {
	Sink
	marker string
}

func (s *stallAfterInsert) Insert(ctx context.Context, evs []schema.Event) error {
	if err := s.Sink.Insert(ctx, evs); err != nil {
		return err
	}
	// Written aside and renamed, so the test never reads a half-written count.
	tmp := s.marker + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(len(evs))), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.marker); err != nil {
		return err
	}
	select {}
}

// TestClickHouseOutage cuts ClickHouse off while orders keep coming, then
// restores it: the projector backs off, keeps at most one batch, and drains
// the backlog; nothing is missing. The outage lasts until what it must show
// has happened (inserts failed past the backoff's cap, a backlog of more
// than two batches), not a fixed 30 s.
func TestClickHouseOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	proxy := newCutProxy(t, testenv.ClickHouseAddr(t))
	dsn := strings.Replace(e.dsn, testenv.ClickHouseAddr(t), proxy.addr, 1)
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	cfg := testConfig("outage")
	cfg.BatchSize = 100
	reg := prometheus.NewRegistry()
	p, err := New(cfg, e.rdb, NewClickHouse(ch), reg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(ctx) }()
	defer func() { cancel(); <-done }()

	want := map[string]schema.Order{}
	var mu sync.Mutex
	emitUntil := func(done func() bool) {
		for ; !done(); time.Sleep(20 * time.Millisecond) {
			got := e.emitLife("p-outage", 1)
			mu.Lock()
			for k, v := range got {
				want[k] = v
			}
			mu.Unlock()
		}
	}
	emitFor := func(d time.Duration) {
		end := time.Now().Add(d)
		emitUntil(func() bool { return !time.Now().Before(end) })
	}
	emitFor(time.Second)
	proxy.cut(true)
	cutAt, before := time.Now(), len(want)
	// Backoff 20 ms doubling to its 200 ms cap: 8 failures are past the cap.
	// Two events per order: more than two batches wait behind the held one.
	emitUntil(func() bool {
		if time.Since(cutAt) > 30*time.Second {
			t.Fatalf("after 30 s of outage: %v failed inserts, %d orders emitted", testutilValue(p.m.insertErrors), len(want)-before)
		}
		return testutilValue(p.m.insertErrors) >= 8 && 2*(len(want)-before) > 2*cfg.BatchSize
	})
	outage := time.Since(cutAt)
	proxy.cut(false)
	emitFor(time.Second)
	e.waitListed("p-outage", want, 30*time.Second)
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })
	if testutilValue(p.m.insertErrors) == 0 {
		t.Fatal("no insert failed during the outage: the cut did not take")
	}
	t.Logf("%d orders (%d events) projected across a %v outage; %v failed inserts retried",
		len(want), 2*len(want), outage.Round(time.Millisecond), testutilValue(p.m.insertErrors))
}

// cutProxy forwards TCP to a server until cut, then drops every connection
// and refuses new ones: an unreachable server, seen from the client.
type cutProxy struct {
	addr  string
	down  atomic.Bool
	mu    sync.Mutex
	conns map[net.Conn]bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	p := &cutProxy{addr: ln.Addr().String(), conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				_ = c.Close()
				continue
			}
			go p.pipe(c, target)
		}
	}()
	return p
}

func (p *cutProxy) pipe(c net.Conn, target string) {
	s, err := net.Dial("tcp", target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
	_, _ = io.Copy(c, s)
	_ = c.Close()
}

func (p *cutProxy) cut(down bool) {
	p.down.Store(down)
	if !down {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// failAcks makes the first n pipelines that acknowledge fail, as they do
// while Redis replays its AOF after a restart (LOADING).
type failAcks struct{ n atomic.Int32 }

func (f *failAcks) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failAcks) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (f *failAcks) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && cmds[0].Name() == "xack" && f.n.Add(-1) >= 0 {
			err := errors.New("LOADING Redis is loading the dataset in memory")
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// TestAckFailuresAreRetried: a Redis that refuses acknowledgements for a
// while (a restart replaying its AOF) does not stop the projector; once it
// answers, every entry is projected and acknowledged, and the projector
// keeps projecting what comes after.
func TestAckFailuresAreRetried(t *testing.T) {
	e := newEnv(t)
	hook := &failAcks{}
	hook.n.Store(3)
	e.rdb.AddHook(hook)
	e.start(testConfig("acks"), NewClickHouse(e.ch))
	first := newOrder("p-acks")
	e.emit(first, schema.EventCreated)
	waitFor(t, "the refused acknowledgements", func() bool { return hook.n.Load() < 0 })
	second := newOrder("p-acks")
	e.emit(second, schema.EventCreated)
	e.waitListed("p-acks", map[string]schema.Order{first.ID: first, second.ID: second}, 10*time.Second)
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })
}
