package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Store is Redis or ClickHouse run by the project's own scripts
// (scripts/redis.sh, scripts/clickhouse.sh), so the suite's servers are
// configured exactly as tests and `make run` configure them: Redis with
// AOF and appendfsync always.
type Store struct {
	Name   string // "redis" or "clickhouse"
	Dir    string
	Port   int
	script string
}

func newStore(root, dir, name string) (*Store, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return &Store{Name: name, Dir: filepath.Join(dir, name), Port: port,
		script: filepath.Join(root, "scripts", name+".sh")}, nil
}

// Start starts the server, or restarts it from its data after a kill:
// Redis replays its AOF before it answers PING, and the script waits.
func (s *Store) Start(ctx context.Context, env ...string) error {
	cmd := exec.CommandContext(ctx, s.script, "start", s.Dir, strconv.Itoa(s.Port))
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s start: %w: %s", s.Name, err, out)
	}
	return nil
}

// Stop is a clean shutdown (Redis flushes its AOF).
func (s *Store) Stop(ctx context.Context) error {
	if out, err := exec.CommandContext(ctx, s.script, "stop", s.Dir).CombinedOutput(); err != nil {
		return fmt.Errorf("%s stop: %w: %s", s.Name, err, out)
	}
	return nil
}

// Kill9 kills the server with SIGKILL and waits until it is gone: no
// shutdown, no last flush; what survives is what was on disk.
func (s *Store) Kill9() error {
	b, err := os.ReadFile(filepath.Join(s.Dir, s.Name+".pid"))
	if err != nil {
		return fmt.Errorf("%s pid: %w", s.Name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%s pid %q: %w", s.Name, b, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill -9 %s: %w", s.Name, err)
	}
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// alive is true while pid runs and is no zombie (a daemon's parent may
// not reap it at once).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
