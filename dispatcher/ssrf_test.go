package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// Under testPolicy 127.0.0.1 stands for a merchant's public server and
// every other address is judged as in production, so 127.0.0.2 is "our
// own network": the tests need no outside network to play an attacker
// whose name resolves to both.
var (
	publicStandIn  = netip.MustParseAddr("127.0.0.1")
	privateStandIn = netip.MustParseAddr("127.0.0.2")
)

func testPolicy(a netip.Addr) string {
	if a.Unmap() == publicStandIn {
		return ""
	}
	return refusal(a)
}

// countingListener is a server that only counts the connections it gets:
// the private target, which must get none.
type countingListener struct {
	ln       net.Listener
	accepted atomic.Int32
}

func listenCounting(t *testing.T, addr string) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		testenv.Skipf(t, "cannot listen on %s: %v", addr, err)
	}
	c := &countingListener{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			_ = conn.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return c
}

// serveOn serves h on 127.0.0.1 and returns its port; every answer closes
// the connection, so each attempt dials (and resolves) afresh.
func serveOn(t *testing.T, h http.HandlerFunc) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		h(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// rebinder is a name server for one name that answers with the public
// address on the first lookup and the private one on every later lookup:
// the DNS rebinding attacker.
type rebinder struct {
	mu      sync.Mutex
	lookups int
}

func (r *rebinder) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if host != "rebind.test" {
		return nil, fmt.Errorf("no such host %s", host)
	}
	if r.lookups == 1 {
		return []netip.Addr{publicStandIn}, nil
	}
	return []netip.Addr{privateStandIn}, nil
}

func testGuard(lookup func(context.Context, string) ([]netip.Addr, error)) *guardedDialer {
	return &guardedDialer{dialer: &net.Dialer{Timeout: 2 * time.Second}, lookup: lookup, refuse: testPolicy}
}

// TestRebindingNeverReachesThePrivateAddress: a notify_url whose name
// resolves to a public address first and to a private one afterwards gets
// its first delivery on the public address, and every later attempt is
// refused; the private address never sees a connection, because the
// address that was checked is the one dialled.
func TestRebindingNeverReachesThePrivateAddress(t *testing.T) {
	port := serveOn(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("success")) })
	private := listenCounting(t, netip.AddrPortFrom(privateStandIn, uint16(port)).String())
	dns := &rebinder{}
	c := guardedClient(testConfig(), testGuard(dns.lookup))
	target := fmt.Sprintf("http://rebind.test:%d/hook", port)
	ctx := context.Background()

	if r := post(ctx, c, target, "a=1", modernHeaders{}, 5*time.Second); !r.ack {
		t.Fatalf("first delivery (public answer): %+v", r)
	}
	for i := 0; i < 3; i++ {
		r := post(ctx, c, target, "a=1", modernHeaders{}, 5*time.Second)
		if r.ack || r.kind != "refused" {
			t.Fatalf("delivery after rebinding: %+v, want refused", r)
		}
	}
	if n := private.accepted.Load(); n != 0 {
		t.Fatalf("the private address got %d connections", n)
	}
	if dns.lookups < 4 {
		t.Fatalf("%d lookups for 4 deliveries on closed connections: the test did not exercise re-resolution", dns.lookups)
	}
}

// TestDialerChecksTheSocketAddress: the last check sits on the socket, so
// a connect to a refused address fails even when it did not come through
// the guard's own lookup (a dial by address, a future code path).
func TestDialerChecksTheSocketAddress(t *testing.T) {
	port := serveOn(t, func(http.ResponseWriter, *http.Request) {})
	private := listenCounting(t, netip.AddrPortFrom(privateStandIn, uint16(port)).String())
	d := testGuard(nil).netDialer()
	ctx := context.Background()
	_, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(privateStandIn, uint16(port)).String())
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Addr != privateStandIn {
		t.Fatalf("dial of the private address: %v, want a refusal", err)
	}
	c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(publicStandIn, uint16(port)).String())
	if err != nil {
		t.Fatalf("dial of the public address: %v", err)
	}
	_ = c.Close()
	if n := private.accepted.Load(); n != 0 {
		t.Fatalf("the private address got %d connections", n)
	}
}

// TestRedirectToPrivateAddressNotFollowed: a merchant endpoint on a public
// address answering with a redirect to our own network does not make us
// call there; the attempt fails and says why.
func TestRedirectToPrivateAddressNotFollowed(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			private := listenCounting(t, netip.AddrPortFrom(privateStandIn, 0).String())
			to := "http://" + private.ln.Addr().String() + "/internal"
			port := serveOn(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, status) })
			c := guardedClient(testConfig(), testGuard(func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{publicStandIn}, nil
			}))
			r := post(context.Background(), c, fmt.Sprintf("http://shop.test:%d/hook", port), "a=1", modernHeaders{}, 5*time.Second)
			if r.ack || r.status != status || r.kind != "http_status" {
				t.Fatalf("redirect answer: %+v", r)
			}
			if n := private.accepted.Load(); n != 0 {
				t.Fatalf("the redirect target got %d connections", n)
			}
		})
	}
}
