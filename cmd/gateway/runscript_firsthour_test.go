package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestRunScriptFirstHour walks the README's quick start on a real make run
// (on free ports and a data directory of its own), started in the
// background by a shell without job control, as `make run &` in a script
// is, where SIGINT begins ignored: the banner's create (with notify_url to
// the demo receiver) and pay work as printed, the receiver prints the
// webhook with both signatures verified, the banner names the webhook
// secret, console-user add and the operator console; then SIGINT stops the
// gateway, the receiver and the servers, as SIGTERM does: sent to
// scripts/run.sh, and to the process group of a `make run` (as Ctrl-C
// sends it to a foreground job's).
func TestRunScriptFirstHour(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Redis, ClickHouse and the gateway")
	}
	t.Parallel()
	tests := []struct {
		name, script string
		group        bool
	}{
		{"SIGINT to run.sh", "../../scripts/run.sh", false},
		{"SIGINT to make run's process group", "make -s -C ../.. run", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { // one after the other: each builds bin/gateway
			ports := freePorts(t, 6)
			env := map[string]string{
				"GATEWAY_HTTP_ADDR": "127.0.0.1:" + ports[0], "GATEWAY_OPS_ADDR": "127.0.0.1:" + ports[1],
				"GATEWAY_ADMIN_ADDR": "127.0.0.1:" + ports[2], "GATEWAY_RUN_RECEIVER_ADDR": "127.0.0.1:" + ports[3],
				"GATEWAY_RUN_REDIS_PORT": ports[4], "GATEWAY_RUN_CLICKHOUSE_PORT": ports[5], "GATEWAY_RUN_DIR": t.TempDir(),
			}
			run := startBackgroundRun(t, tc.script, env)
			checkFirstHour(t, run, ports)
			target := run.pid
			if tc.group {
				target = -run.pgid
			}
			if err := syscall.Kill(target, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case <-run.done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("SIGINT did not stop the background run\n%s", run.stderrText())
			}
			for _, p := range []string{ports[0], ports[3], ports[4], ports[5]} {
				if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+p, time.Second); err == nil {
					conn.Close()
					t.Fatalf("port %s still answers after SIGINT stopped the run", p)
				}
			}
		})
	}
}

// checkFirstHour is the quick start on a running make run: the banner's
// lines, its create and pay as printed, the receiver's verdicts.
func checkFirstHour(t *testing.T, run *backgroundRun, ports []string) {
	t.Helper()
	banner := run.waitFor(t, "\n====\n", 5*time.Minute)
	for _, want := range []string{"webhook secret (webhook-signature header): whsec_",
		`"notify_url":"http://127.0.0.1:` + ports[3] + `/hook"`,
		"bin/gateway console-user add ", "Operator console: http://127.0.0.1:" + ports[2] + "/admin",
		"bin/gateway operator add you@example.com --role admin"} {
		if !strings.Contains(banner, want) {
			t.Fatalf("banner lacks %q:\n%s", want, banner)
		}
	}
	testenv.Eventually(t, time.Minute, "the gateway serves", func() bool {
		return strings.Contains(run.stderrText(), `"gateway serving"`)
	})
	id := bannerCreate(t, banner)
	pay := regexp.MustCompile(`curl -s -X POST "([^"]*PAYMENT_ID/pay[^"]*)"`).FindStringSubmatch(banner)
	if pay == nil {
		t.Fatalf("no pay curl in the banner:\n%s", banner)
	}
	res, err := http.Post(strings.Replace(pay[1], "PAYMENT_ID", id, 1), "", nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("pay as printed: %v %v", res, err)
	}
	res.Body.Close()
	hook := run.waitFor(t, "answered:", time.Minute)
	for _, want := range []string{id, "MD5 sign (API key):                   verified",
		"webhook-signature (webhook secret):   verified", "answered: success"} {
		if !strings.Contains(hook, want) {
			t.Fatalf("the receiver printed:\n%s\nwant %q", hook, want)
		}
	}
}

// bannerCreate posts the banner's create as printed and answers the new
// order's paymentId.
func bannerCreate(t *testing.T, banner string) string {
	t.Helper()
	m := regexp.MustCompile(`curl -s (\S+/api/createorder) .*\n\s*-d '([^']*)'`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("no create curl in the banner:\n%s", banner)
	}
	res, err := http.Post(m[1], "application/json", strings.NewReader(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var created struct {
		Data struct {
			PaymentID string `json:"paymentId"`
		} `json:"data"`
	}
	raw, _ := io.ReadAll(res.Body)
	if json.Unmarshal(raw, &created) != nil || created.Data.PaymentID == "" {
		t.Fatalf("create as printed answered %d %s", res.StatusCode, raw)
	}
	return created.Data.PaymentID
}

// backgroundRun is scripts/run.sh started as `run.sh &` by a bash without
// job control: it begins with SIGINT ignored.
type backgroundRun struct {
	pid    int // the background job's
	pgid   int // the shell's and the job's process group
	done   chan struct{}
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func startBackgroundRun(t *testing.T, script string, env map[string]string) *backgroundRun {
	t.Helper()
	cmd := exec.Command("bash", "-c", script+` & echo "run.sh pid $!"; wait $!`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	r := &backgroundRun{done: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = writerFunc(func(p []byte) { r.mu.Lock(); r.stderr.Write(p); r.mu.Unlock() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("the background run printed no pid")
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "run.sh pid "))
	if err != nil {
		t.Fatalf("first line %q: %v", sc.Text(), err)
	}
	r.pid, r.pgid = pid, cmd.Process.Pid
	go func() {
		for sc.Scan() {
			r.mu.Lock()
			r.stdout.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
		}
		_ = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() { r.stop(t, env["GATEWAY_RUN_DIR"]) })
	return r
}

// stop ends what a failed test left running: the run, then the servers it
// started from their data directories.
func (r *backgroundRun) stop(t *testing.T, dir string) {
	select {
	case <-r.done:
	default:
		_ = syscall.Kill(r.pid, syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(time.Minute):
			t.Errorf("the run did not stop on SIGTERM either")
		}
	}
	for _, s := range []string{"redis", "clickhouse"} {
		_ = exec.Command("../../scripts/"+s+".sh", "stop", filepath.Join(dir, s)).Run()
	}
}

// waitFor waits until stdout holds a whole line with want and answers
// stdout so far.
func (r *backgroundRun) waitFor(t *testing.T, want string, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r.mu.Lock()
		text := r.stdout.String()
		r.mu.Unlock()
		if i := strings.LastIndex(text, want); i >= 0 && strings.Contains(text[i:], "\n") {
			return text
		}
		select {
		case <-r.done:
			t.Fatalf("the run ended before printing %q\nstdout:\n%s\nstderr:\n%s", want, text, r.stderrText())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s\nstdout:\n%s\nstderr:\n%s", want, limit, text, r.stderrText())
		}
	}
}

func (r *backgroundRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// freePorts are n loopback ports nothing listens on now, chosen as the
// scripts choose them (lib.sh's free_port: below the ephemeral range, so no
// outgoing connection can take one before the servers bind it).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var ports []string
	for range n {
		out, err := exec.Command("bash", append([]string{"-c", `. ../../scripts/lib.sh && free_port "$@"`, "_"}, ports...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, strings.TrimSpace(string(out)))
	}
	return ports
}
