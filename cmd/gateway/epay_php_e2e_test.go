package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestEpayPHPClient: a merchant's client written in PHP from docs/epay.md
// alone (testdata/epay/client.php) drives the real binary: it orders by
// mapi.php, the sandbox pays, the gateway's GET notification reaches the
// client's notify_url (PHP's built-in server) whose own code verifies the
// sign and answers "success", and the client reads the order's status and
// refunds a part by the door's api.php (where the binary serves none, it
// reads by GET /api/order and refunds nothing). A notification with a
// changed money is answered "fail" by the same code.
func TestEpayPHPClient(t *testing.T) {
	php := testenv.Tool(t, "php")
	e := newE2E(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "php shop", "--sandbox", "--json")
	s := e.serve(epayTypesEnv)

	client, err := filepath.Abs("testdata/epay/client.php")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "notified.jsonl")
	notify := phpServer(t, php, client, "EPAY_KEY="+shop.APIKey, "EPAY_LOG="+log)

	var a epayAnswer
	runPHP(t, php, &a, client, "order", s.base+"/", shop.AppID, shop.APIKey, "t2", "PHP-1", notify+"/notify", "25.00",
		"Tea & cake", "session=9&x")
	if a.Code != 1 || a.TradeNo == "" {
		t.Fatalf("mapi.php through the PHP client: %+v", a)
	}
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, a.TradeNo, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	var got map[string]string
	testenv.Eventually(t, 10*time.Second, "the PHP notify_url verified a notification", func() bool {
		raw, _ := os.ReadFile(log)
		line, _, _ := bytes.Cut(raw, []byte("\n"))
		return len(line) > 0 && json.Unmarshal(line, &got) == nil
	})
	if got["trade_no"] != a.TradeNo || got["out_trade_no"] != "PHP-1" || got["money"] != "25.00" || got["type"] != "t2" ||
		got["name"] != "Tea & cake" || got["param"] != "session=9&x" || got["pid"] != shop.AppID {
		t.Fatalf("verified notification %v", got)
	}

	// The client's verification is real: a changed money is answered fail.
	forged := url.Values{}
	for k, v := range got {
		forged.Set(k, v)
	}
	forged.Set("money", "2500.00")
	res, err := http.Get(notify + "/notify?" + forged.Encode())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "fail" {
		t.Fatalf("a forged notification answered %q", body)
	}

	// The order's status: by api.php where this binary serves it, else by
	// the gateway's own GET /api/order.
	var q struct {
		Via    string         `json:"via"`
		Answer map[string]any `json:"answer"`
	}
	runPHP(t, php, &q, client, "query", s.base, shop.AppID, shop.APIKey, shop.QueryKey, a.TradeNo)
	switch q.Via {
	case "api.php":
		if q.Answer["code"] != float64(1) || q.Answer["status"] != float64(1) || q.Answer["out_trade_no"] != "PHP-1" {
			t.Fatalf("api.php act=order through the PHP client: %v", q.Answer)
		}
	case "api/order":
		t.Log("this binary serves no api.php: the PHP client read the order by GET /api/order")
		data, _ := q.Answer["data"].(map[string]any)
		if data["status_str"] != "paid" || data["clientOrderId"] != "PHP-1" {
			t.Fatalf("GET /api/order through the PHP client: %v", q.Answer)
		}
	default:
		t.Fatalf("query through the PHP client: %+v", q)
	}

	// A part of it back, by api.php's refund where it is served.
	var r struct {
		Via    string         `json:"via"`
		Answer map[string]any `json:"answer"`
	}
	runPHP(t, php, &r, client, "refund", s.base, shop.AppID, shop.APIKey, a.TradeNo, "5.00")
	switch r.Via {
	case "api.php":
		if r.Answer["code"] != float64(1) || r.Answer["money"] != "5.00" {
			t.Fatalf("api.php act=refund through the PHP client: %v", r.Answer)
		}
	case "none":
		t.Log("this binary serves no api.php: no refund through the door")
	default:
		t.Fatalf("refund through the PHP client: %+v", r)
	}
}

// phpServer runs PHP's built-in server on a free loopback port with the
// client as its router, and answers its base URL.
func phpServer(t *testing.T, php, router string, env ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(php, "-S", addr, router)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testenv.Eventually(t, 10*time.Second, "PHP's server listens", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + addr
}

// runPHP runs the client with args and decodes what it prints into v.
func runPHP(t *testing.T, php string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(php, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("php %v: %v\n%s", args[1:], err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("php %v printed %s: %v", args[1:], out, err)
	}
}
