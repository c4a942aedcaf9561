package platform

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// faultProxy stands between a client and the real Redis: it forwards every
// command, or, while refusing, answers each one itself with an error reply
// (as a Redis loading its dataset does), so a test can break and mend a
// real Redis for one client without touching the server others share.
type faultProxy struct {
	ln       net.Listener
	upstream string
	refusal  atomic.Pointer[string]
	wg       sync.WaitGroup
}

func newFaultProxy(t *testing.T, upstream string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, upstream: upstream}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { _ = ln.Close(); p.wg.Wait() })
	return p
}

func (p *faultProxy) addr() string { return p.ln.Addr().String() }

// refuse makes every command answered with "-"+msg; "" forwards again.
func (p *faultProxy) refuse(msg string) { p.refusal.Store(&msg) }

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

// serve forwards one client connection. A read that arrives while refusing
// is answered with the error and not forwarded; clients here send one
// command at a time and wait for its answer.
func (p *faultProxy) serve(c net.Conn) {
	defer c.Close()
	var up net.Conn
	defer func() {
		if up != nil {
			_ = up.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		if msg := p.refusal.Load(); msg != nil && *msg != "" {
			if _, err := c.Write([]byte("-" + *msg + "\r\n")); err != nil {
				return
			}
			continue
		}
		if up == nil {
			if up, err = net.Dial("tcp", p.upstream); err != nil {
				return
			}
			go func(up net.Conn) { _, _ = io.Copy(c, up) }(up)
		}
		if _, err := up.Write(buf[:n]); err != nil {
			return
		}
	}
}
