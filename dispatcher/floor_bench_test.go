package dispatcher

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/events"
)

// floorReceiverEnv makes the test binary a receiver process (see
// TestFloorReceiverProcess) instead of running tests.
const floorReceiverEnv = "DISPATCHER_FLOOR_RECEIVER_PORTS"

// BenchmarkHTTPFloor is the HTTP side of an endpoint delivery alone, no
// Redis: b.N signed event posts through the dispatcher's own client (its
// guarded dialer, keep-alive, time-outs, per-host limit, answer bound) with
// the Standard-Webhooks headers and a ~600-byte JSON body, to a receiver
// in a process of its own that does what gwbench's does (counts each
// webhook-id once, answers 204). Concurrency and the per-host limit are
// the dispatcher's defaults (or GATEWAY_WEBHOOK_CONCURRENCY and
// GATEWAY_WEBHOOK_PER_HOST), over 32 receiver ports as in the drain. It
// reports exchanges/s and the CPU each side spent per exchange, which is
// the floor under a delivery's cost whatever Redis does. make bench-floor:
//
//	go test -run '^$' -bench HTTPFloor -benchtime 100000x ./dispatcher
func BenchmarkHTTPFloor(b *testing.B) {
	const ports = 32
	cfg := floorConfig()
	addrs, rcvPID := startFloorReceiver(b, ports)
	client := newHTTPClient(cfg)
	body := floorBody(b)
	secrets := []string{"whsec_" + strings.Repeat("QUJD", 8)}
	var next, failed atomic.Int64
	run := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= b.N {
				return
			}
			id := events.ID(events.OrderPaid, "floor:"+strconv.Itoa(i))
			h, err := signModern(id, time.Now(), body, secrets)
			if err != nil {
				b.Error(err)
				return
			}
			target := "http://" + addrs[i%ports] + "/ep" + strconv.Itoa(i%(ports*3))
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
			if res := postAs(ctx, client, target, body, jsonType, true, h, cfg.Timeout); !res.ack {
				failed.Add(1)
			}
			cancel()
		}
	}
	// Warm the connections up, as a running dispatcher's are.
	for i := range ports * cfg.PerHost {
		h, _ := signModern("evt_warm", time.Now(), body, secrets)
		postAs(context.Background(), client, "http://"+addrs[i%ports]+"/warm", body, jsonType, true, h, cfg.Timeout)
	}
	selfBefore, rcvBefore := cpuSelf(b), cpuOf(b, rcvPID)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Go(run)
	}
	wg.Wait()
	took := time.Since(start)
	b.StopTimer()
	self, rcv := cpuSelf(b)-selfBefore, cpuOf(b, rcvPID)-rcvBefore
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d exchanges not acknowledged", n, b.N)
	}
	perX := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(float64(b.N)/took.Seconds(), "exchanges/s")
	b.ReportMetric(perX(self), "client-µs/op")
	b.ReportMetric(perX(rcv), "receiver-µs/op")
	b.Logf("%d exchanges in %s: %.0f/s; CPU per exchange %.1f µs client + %.1f µs receiver = %.1f µs (concurrency %d, per host %d, %d ports, body %d bytes)",
		b.N, took.Round(time.Millisecond), float64(b.N)/took.Seconds(), perX(self), perX(rcv), perX(self+rcv),
		cfg.Concurrency, cfg.PerHost, ports, len(body))
}

// floorBody is an order.paid event's JSON of the size a real one has.
func floorBody(tb testing.TB) string {
	tb.Helper()
	order := map[string]any{
		"payment_id": "P20261128123456789012", "appid": "app_0123456789abcdef", "out_trade_no": "ORDER-2026-11-28-000123",
		"amount": 12999, "currency": "CNY", "method": "alipay", "channel": "alipay-main", "status": "paid",
		"subject": "Order 000123: two items", "notify_url": "https://shop.example.com/pay/notify",
		"return_url": "https://shop.example.com/pay/return", "created_at": "2026-11-28T12:00:00Z",
		"paid_at": "2026-11-28T12:00:41Z", "expires_at": "2026-11-28T12:30:00Z", "provider_trade_no": "2026112822001400000000000001",
		"refunded": 0, "fee": 78, "net": 12921, "attach": "cart=8812;coupon=none",
	}
	ev, err := events.New(events.OrderPaid, "floor", time.Now(), order)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := ev.Body()
	if err != nil {
		tb.Fatal(err)
	}
	return string(raw)
}

// startFloorReceiver runs this test binary again as the receiver and
// answers its addresses and process id; the process ends with the test.
func startFloorReceiver(tb testing.TB, ports int) ([]string, int) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloorReceiverProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), floorReceiverEnv+"="+strconv.Itoa(ports))
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	var addrs []string
	for len(addrs) < ports && sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) < ports {
		tb.Fatalf("the receiver process listed %d of %d ports", len(addrs), ports)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return addrs, cmd.Process.Pid
}

// TestFloorReceiverProcess is BenchmarkHTTPFloor's receiver when the
// binary is started as one; otherwise it does nothing. It serves until its
// standard input closes.
func TestFloorReceiverProcess(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(floorReceiverEnv))
	if err != nil || n <= 0 {
		t.Skip("runs only as BenchmarkHTTPFloor's receiver process")
	}
	var mu sync.Mutex
	seen := map[string]struct{}{}
	handle := func(c *fasthttp.RequestCtx) {
		k := string(c.Request.Header.Peek("webhook-id")) + string(c.Path())
		mu.Lock()
		seen[k] = struct{}{}
		mu.Unlock()
		c.SetStatusCode(fasthttp.StatusNoContent)
	}
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &fasthttp.Server{Handler: handle, Concurrency: 4096, IdleTimeout: 2 * time.Minute, CloseOnShutdown: true}
		go func() { _ = srv.Serve(ln) }()
		fmt.Println("listening " + ln.Addr().String())
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
}

// cpuSelf is this process's CPU time so far, user and system.
func cpuSelf(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is process pid's CPU time so far, user and system, from
// /proc/<pid>/stat in clock ticks (100 a second on Linux).
func cpuOf(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		tb.Fatal(err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
