package console

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// BenchmarkLiveFeed is the live feed's cost per order event in the
// gateway's process: the hub's reads of the streams, the decoding, the
// fan-out and every feed's writes and flushes to a real loopback socket.
// The feeds' browsers are another process (this test binary re-run as
// TestLiveBenchReader), and Redis is its own, so the process's CPU time
// (getrusage) over the polls is the gateway's alone; the XADDs that feed
// each poll are outside the measured spans. CPU time, not wall time: the
// machine the figures come from is shared.
//
// perPoll is the events of one merchant one poll finds: 50 kept the old
// per-event feed (a buffer of 64 events a feed) from dropping, 4000 is a
// poll of 500 ms at 8,000 creates/s.
func BenchmarkLiveFeed(b *testing.B) {
	for _, perPoll := range []int{50, 4000} {
		for _, feeds := range []int{1, 100} {
			b.Run(fmt.Sprintf("perPoll=%d/feeds=%d", perPoll, feeds), func(b *testing.B) { benchLive(b, perPoll, feeds) })
		}
	}
}

func benchLive(b *testing.B, perPoll, feeds int) {
	rdb := testenv.Redis(b)
	hub, err := NewHub(HubConfig{}, rdb, existsCheck{rdb}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	conns := readerConns(b, feeds)
	var wg sync.WaitGroup
	var subs []*Sub
	for _, c := range conns {
		s := hub.Subscribe("shop", "bench")
		subs = append(subs, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream(bufio.NewWriter(c), s)
		}()
	}
	ctx := context.Background()
	last := map[string]string{}
	for _, st := range hub.streams {
		last[st] = "0-0"
	}
	var cpu time.Duration
	events := 0
	b.ResetTimer()
	for events < b.N {
		n := min(perPoll, b.N-events)
		want := emitBench(b, rdb, "shop", events, n)
		t0 := cpuTime()
		for !caughtUp(last, want) {
			if _, err := hub.poll(ctx, last); err != nil {
				b.Fatal(err)
			}
		}
		waitDrained(subs)
		cpu += cpuTime() - t0
		events += n
	}
	b.StopTimer()
	t0 := cpuTime()
	hub.stop()
	wg.Wait()
	cpu += cpuTime() - t0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
	b.ReportMetric(testutil.ToFloat64(hub.drops)/float64(events*feeds), "dropped/delivery")
}

// benchMs is the millisecond part of every benchmark entry's id (seq
// counting per stream), so a poll's progress is read off the positions.
const benchMs = 1700000000000

// caughtUp: the hub's positions reached every stream's last entry.
func caughtUp(last, want map[string]string) bool {
	for st, id := range want {
		if last[st] != id {
			return false
		}
	}
	return true
}

// emitBench adds n events of appid's orders, as the create script writes
// them, spread over the shards like the create path's random shards.
func emitBench(b *testing.B, rdb redis.UniversalClient, appid string, from, n int) map[string]string {
	b.Helper()
	ctx := context.Background()
	p := rdb.Pipeline()
	want := map[string]string{}
	for i := from; i < from+n; i++ {
		shard := schema.Shard(i % schema.NumShards)
		now := time.UnixMilli(benchMs).UTC()
		o := &schema.Order{ID: schema.NewOrderID(now, shard), AppID: appid, ClientOrderID: "bench-" + strconv.Itoa(i), Amount: 12345, Currency: "CNY",
			Method: "wallet_a", Status: schema.StatusPending, Description: "Order " + strconv.Itoa(i) + " for tea and biscuits", CustomerEmail: "payer@example.com",
			CustomerName: "A Payer", NotifyURL: "https://shop.example/hooks/pay", ReturnURL: "https://shop.example/thanks", Lang: "en",
			ClientIP: "203.0.113.7", CreatedAt: now, UpdatedAt: now, Version: 1}
		id := fmt.Sprintf("%d-%d", benchMs, i/schema.NumShards)
		p.XAdd(ctx, &redis.XAddArgs{Stream: schema.EventsKey(shard), ID: id, Values: schema.EventFields(schema.EventCreated, now, o)})
		want[schema.EventsKey(shard)] = id
	}
	if _, err := p.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	return want
}

// waitDrained waits until every feed took what the hub gave it. The
// sleeps cost no CPU time; the writer may still be in its last write when
// the buffer is empty, hence the short grace.
func waitDrained(subs []*Sub) {
	for {
		busy := false
		for _, s := range subs {
			s.mu.Lock()
			busy = s.next != nil
			s.mu.Unlock()
			if busy {
				break
			}
		}
		if !busy {
			time.Sleep(2 * time.Millisecond)
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readerConns are n loopback connections whose far ends another process
// (this binary as TestLiveBenchReader) reads and discards, as browsers do.
func readerConns(b *testing.B, n int) []net.Conn {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLiveBenchReader$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LIVE_BENCH_ADDR="+ln.Addr().String(), "LIVE_BENCH_FEEDS="+strconv.Itoa(n))
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var conns []net.Conn
	for range n {
		c, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	b.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
		_ = cmd.Wait()
	})
	return conns
}

// TestLiveBenchReader is BenchmarkLiveFeed's browsers: it connects the
// feeds and reads them until they close. It does nothing in a test run.
func TestLiveBenchReader(t *testing.T) {
	addr := os.Getenv("LIVE_BENCH_ADDR")
	if addr == "" {
		t.Skip("BenchmarkLiveFeed's reader process only")
	}
	n, _ := strconv.Atoi(os.Getenv("LIVE_BENCH_FEEDS"))
	var wg sync.WaitGroup
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = io.Copy(io.Discard, c)
		}()
	}
	wg.Wait()
}

// existsCheck is the session check as access.Accounts.Alive runs it, one
// pipeline of EXISTS a poll, every session standing: its cost is the
// benchmark's too.
type existsCheck struct{ rdb redis.UniversalClient }

func (c existsCheck) Alive(ctx context.Context, ids []string) ([]bool, error) {
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for range ids {
			p.Exists(ctx, "gw:{access}:sess:bench")
		}
		return nil
	})
	out := make([]bool, len(ids))
	for i := range out {
		out[i] = true
	}
	return out, err
}
