package chaos

import (
	"fmt"
	"io"
	"net"
	"sync"
)

// Proxy is the partition between one dispatcher and Redis: a TCP proxy on
// loopback that the dispatcher uses as its Redis address. Cut blackholes
// it (bytes vanish in both directions, nothing is refused or reset, as
// when a network drops packets); Heal closes every connection that lived
// through the cut (their streams lost bytes) and forwards again.
//
// A network namespace was the other way: it needs a veth pair, addresses
// outside loopback and Redis listening on them, which scripts/redis.sh
// deliberately never does (bind 127.0.0.1), and root. The proxy needs none
// of that and drops traffic the same way from the dispatcher's side.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool // both ends of every forwarded connection
}

// NewProxy listens on a loopback port and forwards to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("partition proxy: %w", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

// Addr is the proxy's address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut starts the partition.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
}

// Heal ends it.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.cut = false
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.Heal()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	p.mu.Lock()
	cut := p.cut
	p.conns[client] = true
	p.mu.Unlock()
	if cut {
		// A connection opened during the partition: held, never answered.
		_, _ = io.Copy(io.Discard, client)
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[server] = true
	p.mu.Unlock()
	go p.pipe(server, client)
	p.pipe(client, server)
}

// pipe copies from src to dst, dropping what it reads while the proxy is cut.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			cut := p.cut
			p.mu.Unlock()
			if !cut {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
		}
		if err != nil {
			break
		}
	}
	_ = dst.Close()
	_ = src.Close()
}
