package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestDemoReceiverEndToEnd: `gateway demo receiver` with the demo
// merchant's file, as make run starts it, gets a real paid webhook from the
// gateway and prints both signatures verified and that it answered success;
// the same body with the amount changed, posted with the same headers, reads
// as verified by neither and is refused.
func TestDemoReceiverEndToEnd(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.run("migrate")
	var raw json.RawMessage
	e.cli(&raw, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	var shop account
	if err := json.Unmarshal(raw, &shop); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "demo-merchant.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	rcv := startReceiver(t, e.bin, file)
	s := e.serve()

	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"], p["notify_url"] = "cryptohost", "USD", rcv.url+"/hook"
	r := s.create(t, p, shop.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	var block string
	testenv.Eventually(t, 15*time.Second, "the receiver prints the webhook", func() bool {
		block = rcv.block(0)
		return strings.Contains(block, "answered:")
	})
	for _, want := range []string{"paymentId          " + id, "MD5 sign (API key):                   verified",
		"webhook-signature (webhook secret):   verified", "answered: success"} {
		if !strings.Contains(block, want) {
			t.Fatalf("receiver printed:\n%s\nwant %q", block, want)
		}
	}

	body, h := printedField(block, "body:"), http.Header{}
	for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		h.Set(name, printedField(block, name+":"))
	}
	tampered := strings.Replace(body, "amount=100.50", "amount=1.00", 1)
	if tampered == body {
		t.Fatalf("no amount=100.50 in the printed body %q", body)
	}
	req, _ := http.NewRequest(http.MethodPost, rcv.url+"/hook", strings.NewReader(tampered))
	req.Header = h
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if got := call(t, req); got.Status != http.StatusBadRequest {
		t.Fatalf("tampered webhook answered %d %q", got.Status, got.Raw)
	}
	testenv.Eventually(t, 5*time.Second, "the receiver prints the tampered webhook", func() bool {
		block = rcv.block(1)
		return strings.Contains(block, "answered:")
	})
	for _, want := range []string{"MD5 sign (API key):                   NOT verified",
		"webhook-signature (webhook secret):   NOT verified", "answered: 400"} {
		if !strings.Contains(block, want) {
			t.Fatalf("receiver printed for a tampered body:\n%s\nwant %q", block, want)
		}
	}
}

// printedField is the value of a "  name  value" line of a printout.
func printedField(block, name string) string {
	for _, line := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), name); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// demoReceiver is a running `gateway demo receiver` and what it printed.
type demoReceiver struct {
	url string
	mu  sync.Mutex
	out bytes.Buffer
}

// block is the n-th webhook the receiver printed, "" before it has.
func (r *demoReceiver) block(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	blocks := strings.Split(r.out.String(), "\n---- webhook ")
	if n+1 >= len(blocks) {
		return ""
	}
	return blocks[n+1]
}

// startReceiver runs `gateway demo receiver` on a free loopback port and
// learns its address from the line it prints first.
func startReceiver(t *testing.T, bin, file string) *demoReceiver {
	t.Helper()
	cmd := exec.Command(bin, "demo", "receiver", "--addr", "127.0.0.1:0", "--merchant-file", file)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("demo receiver printed nothing: %s", stderr.String())
	}
	first := sc.Text()
	rest, ok := strings.CutPrefix(first, "demo receiver: webhooks to ")
	addr, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(addr, "http://127.0.0.1:") {
		t.Fatalf("demo receiver's first line: %q", first)
	}
	r := &demoReceiver{url: strings.TrimSuffix(addr, "/")}
	go func() {
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
		}
	}()
	return r
}
