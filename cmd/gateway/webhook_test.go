package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestWebhookCommands pays an order through command's store, lets a real
// dispatcher dead-letter its webhook, then reads and resends it with the CLI.
func TestWebhookCommands(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	url := testenv.RedisURLFor(rdb)
	acct, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	var ok atomic.Bool
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if ok.Load() {
			_, _ = w.Write([]byte("SUCCESS"))
			return
		}
		_, _ = w.Write([]byte(`{"result":"success"}`))
	}))
	defer rc.Close()

	cfg := dispatcher.Defaults()
	cfg.Schedule, cfg.AllowPrivate, cfg.Poll = []time.Duration{20 * time.Millisecond}, true, 20*time.Millisecond
	d, err := dispatcher.New(cfg, rdb, accountKeys(merchant.NewStore(rdb)), prometheus.NewRegistry(),
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = d.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	store := command.NewStore(rdb, time.Minute, time.Hour)
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: acct.AppID, Amount: 100, Currency: "USD",
		Method: schema.MethodWalletA, NotifyURL: rc.URL + "/hook", CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Transition(ctx, o.ID, schema.StatusPaid, now); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "dead-lettered", func() bool {
		st, _ := d.State(ctx, o.ID)
		return st != nil && st.State == dispatcher.StateDead
	})

	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := webhookCmd(ctx, append(args, "--redis-url", url), &out, &errOut)
		return out.String() + errOut.String(), err
	}
	out, err := cli("log", o.ID)
	if err != nil || !strings.Contains(out, "state:      dead") || !strings.Contains(out, `{\"result\":\"success\"}`) ||
		strings.Count(out, " auto ") != 2 {
		t.Fatalf("webhook log: %v\n%s", err, out)
	}

	ok.Store(true)
	out, err = cli("resend", o.ID, "--wait", "10s", "--json")
	var report struct {
		Delivery dispatcher.Delivery     `json:"delivery"`
		Attempts []schema.WebhookAttempt `json:"attempts"`
	}
	if err != nil || json.Unmarshal([]byte(out), &report) != nil {
		t.Fatalf("webhook resend: %v\n%s", err, out)
	}
	last := report.Attempts[len(report.Attempts)-1]
	if report.Delivery.State != dispatcher.StateDelivered || len(report.Attempts) != 3 || !last.Manual || !last.Success {
		t.Fatalf("after resend: %s", out)
	}

	if _, err := cli("log", schema.NewOrderID(now, 2)); !errors.Is(err, dispatcher.ErrNoDelivery) {
		t.Errorf("log of an order without a webhook: %v", err)
	}
	if _, err := cli("log", o.ID, "rf_NOTTHISORDERS"); !errors.Is(err, dispatcher.ErrNoDelivery) {
		t.Errorf("log of a refund the order does not have: %v", err)
	}
	if _, err := cli("resend", o.ID, "rf_NOTTHISORDERS"); !errors.Is(err, dispatcher.ErrNoDelivery) {
		t.Errorf("resend of a refund the order does not have: %v", err)
	}
	if _, err := cli("resend", o.ID, "rf_A", "rf_B"); err == nil {
		t.Error("resend with three ids accepted")
	}
	if _, err := cli("resend"); err == nil {
		t.Error("resend without an id accepted")
	}
}

// TestWebhookLogCounts: the summary above the table counts the table's
// rows by kind, whatever the delivery's schedule counter says.
func TestWebhookLogCounts(t *testing.T) {
	tests := []struct {
		name     string
		counter  int
		attempts []schema.WebhookAttempt
		want     string
	}{
		{"one automatic, one manual", 2, []schema.WebhookAttempt{{Attempt: 1, Success: true}, {Attempt: 2, Manual: true, Success: true}},
			"attempts:   2 (1 automatic, 1 manual)"},
		{"none yet", 0, nil, "attempts:   0 (0 automatic, 0 manual)"},
		{"three automatic", 3, []schema.WebhookAttempt{{Attempt: 1}, {Attempt: 2}, {Attempt: 3, Success: true}},
			"attempts:   3 (3 automatic, 0 manual)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := webhookReport{Delivery: &dispatcher.Delivery{PaymentID: "P1", State: "delivered", Automatic: tt.counter}, Attempts: tt.attempts}
			if err := (webhookOutput{w: &buf}).report(r); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), tt.want) || strings.Contains(buf.String(), "automatic:  ") {
				t.Fatalf("printed\n%s\nwant %q", buf.String(), tt.want)
			}
			if rows := strings.Count(buf.String(), "\n") - 6; rows != len(tt.attempts) {
				t.Fatalf("%d table rows for %d attempts:\n%s", rows, len(tt.attempts), buf.String())
			}
		})
	}
}
