package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunScriptRefusesATakenPort: `make run` checks the gateway's HTTP port
// (from GATEWAY_HTTP_ADDR) before it starts or prints anything.
func TestRunScriptRefusesATakenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command("bash", "../../scripts/run.sh")
	cmd.Env = append(cmd.Environ(), "GATEWAY_HTTP_ADDR="+ln.Addr().String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("run.sh started on a taken port")
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if stdout.Len() > 0 || !strings.Contains(stderr.String(), "port "+port) {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// TestDepsByNeed: `scripts/deps.sh run` (make run's) installs only what
// running needs, the test tools (promtool, npm for axe-core, Chromium, the
// CJK font, the SDKs' PHP, Python and Node) only `scripts/deps.sh test`
// (make test's). On a PATH of stubs
// where Redis, ClickHouse and make are there and the test tools are not,
// apt-get records what each would install.
func TestDepsByNeed(t *testing.T) {
	tests := []struct {
		mode, want string
	}{
		{"run", ""},
		{"test", "prometheus npm chromium fonts-wqy-microhei php-cli php-curl python3 nodejs"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			bin, log := t.TempDir(), filepath.Join(t.TempDir(), "apt-get.log")
			for _, tool := range []string{"bash", "dirname", "grep", "cat"} {
				path, err := exec.LookPath(tool)
				if err != nil {
					t.Skipf("%s: %v", tool, err)
				}
				if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
					t.Fatal(err)
				}
			}
			stubs := map[string]string{
				"redis-server": "", "redis-cli": "", "clickhouse": "", "make": "", "id": "echo 0",
				"dpkg-query": "", "apt-cache": "echo 'Candidate: 1.0'", "service": "", "systemctl": "",
				"apt-get": `[ "$1" = install ] && echo "${@:5}" >>` + log,
			}
			for name, body := range stubs {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!"+filepath.Join(bin, "bash")+"\n"+body+"\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(filepath.Join(bin, "bash"), "../../scripts/deps.sh", tc.mode)
			cmd.Env = []string{"PATH=" + bin}
			out, err := cmd.CombinedOutput()
			got, _ := os.ReadFile(log)
			if strings.TrimSpace(string(got)) != tc.want {
				t.Fatalf("deps.sh %s installed %q, want %q (%v)\n%s", tc.mode, got, tc.want, err, out)
			}
			if tc.mode == "run" && err != nil {
				t.Fatalf("deps.sh run: %v\n%s", err, out)
			}
		})
	}
}
