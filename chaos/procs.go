package chaos

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Proc is one gateway process of the suite. It keeps its address across
// restarts, so the load and the webhook receiver's view of it do not change
// when a fault kills it.
type Proc struct {
	Name  string
	Roles string
	Addr  string // 127.0.0.1:port
	env   []string
	bin   string
	dir   string
	cmd   *exec.Cmd
	done  chan struct{}
}

// freePort asks the kernel for a loopback port nobody uses.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// newProc prepares a gateway process; Start runs it.
func newProc(bin, dir, name, roles string, env []string) (*Proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &Proc{Name: name, Roles: roles, Addr: "127.0.0.1:" + strconv.Itoa(port), bin: bin, dir: dir}
	// The operations listener (/metrics) on a port of the kernel's choice:
	// several processes share the host.
	p.env = append([]string{"GATEWAY_HTTP_ADDR=" + p.Addr, "GATEWAY_PUBLIC_URL=http://" + p.Addr,
		"GATEWAY_OPS_ADDR=127.0.0.1:0", "GATEWAY_ADMIN_ADDR=127.0.0.1:0", "GATEWAY_ROLES=" + roles}, env...)
	return p, nil
}

// Start runs the process (its log appended to DIR/NAME.log, its pid in
// DIR/NAME.pid for scripts/chaos.sh's clean-up) and waits until /readyz
// answers 200. extra is added to the environment for this run only (the
// partitioned dispatcher's Redis address, a skewed clock).
func (p *Proc) Start(ctx context.Context, extra ...string) error {
	logf, err := os.OpenFile(filepath.Join(p.dir, p.Name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%s log: %w", p.Name, err)
	}
	p.cmd = exec.Command(p.bin, "serve")
	p.cmd.Env = append(append(os.Environ(), p.env...), extra...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	// If the runner dies, the kernel kills its gateways too.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	_ = os.WriteFile(filepath.Join(p.dir, p.Name+".pid"), []byte(strconv.Itoa(p.cmd.Process.Pid)+"\n"), 0o644)
	done := make(chan struct{})
	p.done = done
	go func(cmd *exec.Cmd) {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}(p.cmd)
	return p.waitReady(ctx, 30*time.Second)
}

func (p *Proc) waitReady(ctx context.Context, within time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited during start-up:\n%s", p.Name, p.tail(20))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		res, err := client.Get("http://" + p.Addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not ready within %v:\n%s", p.Name, within, p.tail(20))
}

// Kill9 is the fault: SIGKILL, no chance to finish anything.
func (p *Proc) Kill9() {
	if p.cmd == nil || !p.running() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Stop is a graceful stop (SIGTERM), SIGKILL after 30 s.
func (p *Proc) Stop() {
	if p.cmd == nil || !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.Kill9()
	}
	_ = os.Remove(filepath.Join(p.dir, p.Name+".pid"))
}

func (p *Proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *Proc) tail(n int) string {
	b, err := os.ReadFile(filepath.Join(p.dir, p.Name+".log"))
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte("\n")))
}
