package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// server is a gateway or ceiling process this run started. Its pid is in
// DataDir/NAME.pid so that scripts/bench.sh can stop it if we are killed.
type server struct {
	name    string
	addr    string // 127.0.0.1:port
	ops     string // 127.0.0.1:port of the operations listener (/metrics)
	cmd     *exec.Cmd
	logPath string
	pidPath string
	exited  chan struct{}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// freePort asks the kernel for a loopback port nobody uses.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer runs bin with args and env, logging to DataDir/NAME.log, and
// waits until GET /readyz answers 200.
func startServer(ctx context.Context, cfg *config, name, bin string, args, env []string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	opsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, addr: "127.0.0.1:" + strconv.Itoa(port), ops: "127.0.0.1:" + strconv.Itoa(opsPort), exited: make(chan struct{}),
		logPath: filepath.Join(cfg.DataDir, name+".log"), pidPath: filepath.Join(cfg.DataDir, name+".pid")}
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, fmt.Errorf("%s log: %w", name, err)
	}
	s.cmd = exec.Command(bin, substitute(args, s.addr, s.ops)...)
	s.cmd.Env = append(os.Environ(), substitute(env, s.addr, s.ops)...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// If this process dies, the kernel stops the server too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	_ = os.WriteFile(s.pidPath, []byte(strconv.Itoa(s.pid())+"\n"), 0o644)
	go func() {
		_ = s.cmd.Wait()
		logf.Close()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// substitute replaces the placeholders {ADDR} and {OPS} in arguments and
// environment entries with the server's own addresses, chosen here.
func substitute(in []string, addr, ops string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(bytes.ReplaceAll(bytes.ReplaceAll([]byte(s), []byte("{ADDR}"), []byte(addr)), []byte("{OPS}"), []byte(ops)))
	}
	return out
}

func (s *server) waitReady(ctx context.Context, within time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("%s exited during start-up; log %s:\n%s", s.name, s.logPath, tail(s.logPath, 20))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		res, err := client.Get("http://" + s.addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not ready within %v; log %s:\n%s", s.name, within, s.logPath, tail(s.logPath, 20))
}

// stop sends SIGTERM (a graceful stop), and SIGKILL if it is still there
// after 30 s.
func (s *server) stop() {
	if s == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	_ = os.Remove(s.pidPath)
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte("\n")))
}

// gatewayEnv is the environment every gateway of the run shares: our
// servers, loopback only, and default limits far above anything the
// generator can send, so the figures are the gateway's, not the limiter's.
func gatewayEnv(cfg *config, roles string) []string {
	return append([]string{
		"GATEWAY_HTTP_ADDR={ADDR}", "GATEWAY_PUBLIC_URL=http://{ADDR}", "GATEWAY_OPS_ADDR={OPS}", "GATEWAY_ADMIN_ADDR=127.0.0.1:0",
		"GATEWAY_REDIS_URL=" + cfg.RedisURL, "GATEWAY_CLICKHOUSE_DSN=" + cfg.chDSN(),
		"GATEWAY_ROLES=" + roles, "GATEWAY_LOG_LEVEL=info",
		"GATEWAY_RATE_CREATE=1000000/s", "GATEWAY_RATE_QUERY=1000000/s", "GATEWAY_RATE_REPORT=1000000/s", "GATEWAY_RATE_PAGES=1000000/s",
		"GATEWAY_WEBHOOK_ALLOW_PRIVATE=true",
		// The generator's X-Forwarded-For is believed: the status phase
		// sends each poll from a client address of its own.
		"GATEWAY_TRUSTED_PROXIES=127.0.0.1/32",
	}, cfg.GatewayEnv...)
}

func startGateway(ctx context.Context, cfg *config, name, roles string) (*server, error) {
	return startServer(ctx, cfg, name, cfg.Gateway, []string{"serve"}, gatewayEnv(cfg, roles))
}

// cli runs a gateway subcommand and decodes its JSON output into v.
func cli(ctx context.Context, cfg *config, v any, args ...string) error {
	cmd := exec.CommandContext(ctx, cfg.Gateway, args...)
	cmd.Env = append(append(os.Environ(), cfg.GatewayEnv...), "GATEWAY_REDIS_URL="+cfg.RedisURL, "GATEWAY_CLICKHOUSE_DSN="+cfg.chDSN())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("gateway %v: %w: %s", args, err, stderr.String())
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("gateway %v printed %q: %w", args, out, err)
	}
	return nil
}

// account is what `gateway merchant create --json` prints.
type account struct {
	AppID    string `json:"appid"`
	APIKey   string `json:"apiKey"`
	QueryKey string `json:"queryKey"`
}

// newMerchant creates a sandbox merchant with limits no benchmark reaches.
func newMerchant(ctx context.Context, cfg *config, name string) (account, error) {
	var a account
	if err := cli(ctx, cfg, &a, "merchant", "create", "--name", name, "--sandbox", "--json"); err != nil {
		return a, err
	}
	if a.AppID == "" || a.APIKey == "" || a.QueryKey == "" {
		return a, errors.New("merchant create printed no credentials")
	}
	err := cli(ctx, cfg, nil, "merchant", "limits", a.AppID, "--create", "1000000/s", "--query", "1000000/s", "--report", "1000000/s", "--json")
	return a, err
}
