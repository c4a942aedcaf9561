package main

import (
	"bytes"
	"net"
	"os/exec"
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
