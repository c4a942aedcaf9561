package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// TestDemoFileFollowsRotation: after the demo merchant's API key and
// webhook secret are rotated, the next `demo seed` (every make run) writes
// .data/run/demo-merchant.json again with the account's current
// credentials, which make run's banner and curls read, and keeps the same
// merchant.
func TestDemoFileFollowsRotation(t *testing.T) {
	e := newE2ERedis(t)
	dir := t.TempDir()
	var first demoState
	e.cli(&first, "demo", "seed", "--dir", dir, "--json")
	var key, secret account
	e.cli(&key, "merchant", "rotate-key", first.Merchant.AppID, "--grace", "1h", "--json")
	e.cli(&secret, "merchant", "rotate-webhook-secret", first.Merchant.AppID, "--json")
	var again demoState
	e.cli(&again, "demo", "seed", "--dir", dir, "--json")
	raw, err := os.ReadFile(filepath.Join(dir, "demo-merchant.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file account
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("demo-merchant.json: %v\n%s", err, raw)
	}
	tests := []struct{ name, got, want string }{
		{"appid", file.AppID, first.Merchant.AppID},
		{"API key", file.APIKey, key.APIKey},
		{"webhook secret", file.WebhookSecret, secret.WebhookSecret},
		{"query key", file.QueryKey, first.Merchant.QueryKey},
		{"printed API key", again.Merchant.APIKey, key.APIKey},
	}
	for _, tt := range tests {
		if tt.got != tt.want || tt.got == "" {
			t.Errorf("%s in demo-merchant.json after a rotation: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if key.APIKey == first.Merchant.APIKey {
		t.Fatal("the rotation made no new key: the check proves nothing")
	}
	// The demo's channels open their breaker on the simulators'
	// restricted-account phrases, so `gateway sandbox fault` shows failover.
	kw, err := testenv.Client(t, e.redisURL).HGet(context.Background(), schema.ChannelsKey, "kw").Result()
	if err != nil || !strings.Contains(kw, sandbox.RestrictedPhrases()[schema.MethodWalletA]) {
		t.Fatalf("demo keyword list %q, %v: want the restricted phrases", kw, err)
	}
}

// TestDemoFileFollowsRotationWhileServing: a rotation made while the
// gateway serves (make run passes GATEWAY_DEMO_FILE) reaches the file within
// seconds, without waiting for the next make run.
func TestDemoFileFollowsRotationWhileServing(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "demo-merchant.json")
	var first demoState
	e.cli(&first, "demo", "seed", "--dir", dir, "--json")
	e.serve("GATEWAY_DEMO_FILE=" + file)
	var key account
	e.cli(&key, "merchant", "rotate-key", first.Merchant.AppID, "--grace", "1h", "--json")
	if key.APIKey == first.Merchant.APIKey || key.APIKey == "" {
		t.Fatal("the rotation made no new key: the check proves nothing")
	}
	testenv.Eventually(t, 15*time.Second, "demo-merchant.json holds the rotated API key", func() bool {
		raw, err := os.ReadFile(file)
		var got account
		return err == nil && json.Unmarshal(raw, &got) == nil && got.APIKey == key.APIKey && got.AppID == first.Merchant.AppID
	})
}
