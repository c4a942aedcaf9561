package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
)

// TestCreateBodiesAreSignedCreates: every pre-built body parses as the
// gateway parses it, carries its own clientOrderId and verifies with the
// merchant's key, so the benchmark measures creates, not rejections.
func TestCreateBodiesAreSignedCreates(t *testing.T) {
	a := account{AppID: "1001", APIKey: "KEY"}
	bodies := createBodies(a, ownCreate, "t", 3, func(i int) string { return "http://127.0.0.1:1/hook" })
	seen := map[string]bool{}
	for i := range bodies.Len() {
		p, err := command.ParseJSONParams(bodies.At(i))
		if err != nil {
			t.Fatalf("body %d: %v: %s", i, err, bodies.At(i))
		}
		if !schema.VerifySign(p, a.APIKey, p["sign"]) {
			t.Fatalf("body %d does not verify: %s", i, bodies.At(i))
		}
		if seen[p["clientOrderId"]] || p["notify_url"] == "" || p["clientip"] != "127.0.0.1" {
			t.Fatalf("body %d: %v", i, p)
		}
		seen[p["clientOrderId"]] = true
	}
}

func TestPaymentID(t *testing.T) {
	id, err := paymentID([]byte(`{"code":0,"msg":"success","data":{"paymentId":"P1","orderId":"P1"}}`))
	if err != nil || id != "P1" {
		t.Fatalf("got %q, %v", id, err)
	}
	if _, err := paymentID([]byte(`{"code":401,"error":"invalid_sign"}`)); err == nil {
		t.Fatal("an error answer gave a paymentId")
	}
	ids := make([]string, 2)
	check := checkCreate(ids)
	if err := check(&loadgen.Response{Index: 1, Status: 200, Body: []byte(`{"code":0,"data":{"paymentId":"P2"}}`)}); err != nil || ids[1] != "P2" {
		t.Fatalf("check: %v, ids %v", err, ids)
	}
}

func TestScrapeSumsLabelSets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("# HELP x\ngateway_projector_batch_rows_sum 10\ngateway_projector_batch_rows_count 2\n" +
			"gateway_webhook_attempts_total{kind=\"ok\"} 3\ngateway_webhook_attempts_total{kind=\"timeout\"} 1\n" +
			"gateway_projector_insert_duration_seconds_bucket{le=\"1\"} 5\nother 1\n"))
	}))
	defer srv.Close()
	m, err := scrape(t.Context(), strings.TrimPrefix(srv.URL, "http://"), "gateway_projector_", "gateway_webhook_")
	if err != nil {
		t.Fatal(err)
	}
	if m["gateway_projector_batch_rows_sum"] != 10 || m["gateway_webhook_attempts_total"] != 4 || len(m) != 3 {
		t.Fatalf("scraped %v", m)
	}
}

// TestMarkdownJudgesTargets renders a report and checks the verdicts.
func TestMarkdownJudgesTargets(t *testing.T) {
	cfg := &config{Label: "test", Concurrency: 64, DeepPage: 1000}
	r := newReport(cfg)
	r.Ceiling = &pair{Max: loadgen.Result{Throughput: 10000, Concurrency: 64}}
	r.Create = &createReport{pair: pair{Max: loadgen.Result{Throughput: 7500, Concurrency: 64},
		Half: &loadgen.Result{Rate: 3750, OK: 1, Latency: loadgen.Summary{P99: 12}}}, Ratio: 0.75}
	r.Memory.RedisOrderBytes = 680
	r.targets()
	var b strings.Builder
	r.markdown(&b)
	out := b.String()
	for _, want := range []string{"7,500/s = 75% of the ceiling | ≥ 70% — met", "≤ 10 ms — **missed**", "680 B", "≤ 1 KiB — met"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
