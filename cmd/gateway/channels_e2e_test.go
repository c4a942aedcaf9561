package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// TestSandboxSecondChannelPaysEndToEnd: the sandbox's second channel
// (GATEWAY_SANDBOX_CHANNELS' default "default,alt") has its own simulator at
// its SimPath; an order routed to it at the payer's confirm (the default
// channel in maintenance) is initialised at that simulator, paid through it by the
// sandbox driver, and its notification is verified by that channel on its
// own notification path.
func TestSandboxSecondChannelPaysEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	// The default channel in maintenance: routing at the confirm takes alt.
	e.run("channel", "maintenance", "sandbox.cryptopsp.default", "on")
	s := e.serve()
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)

	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"], p["amount"] = "cryptopsp", "USD", "150.00"
	r := s.create(t, p, shop.APIKey)
	if r.Status != 200 {
		t.Fatalf("create: %+v", r)
	}
	id := r.Data["paymentId"].(string)
	shard, _ := schema.ParseOrderID(id)
	key := schema.OrderKey(shard, id)
	if r := s.confirm(t, shop, "/api/cryptopsp/confirm", url.Values{"paymentId": {id}, "pay_currency": {"btc"}}); r.Status != 200 {
		t.Fatalf("confirm: %+v", r)
	}
	checkout, err := rdb.HGet(ctx, key, schema.FProviderURL).Result()
	alt := s.base + sandbox.SimPath(schema.MethodCryptoPSP, "alt")
	if err != nil || !strings.HasPrefix(checkout, alt+"/") {
		t.Fatalf("checkout %q (%v), want one of the alt channel's simulator at %s", checkout, err, alt)
	}
	res, err := http.Get(checkout)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("the alt simulator's checkout page: %d", res.StatusCode)
	}

	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	raw, err := rdb.LRange(ctx, schema.NotificationsKey(shard, id), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var applied bool
	for _, line := range raw {
		var rec schema.NotificationRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Verdict == schema.VerdictApplied {
			applied = rec.Channel == "alt"
		}
	}
	if !applied {
		t.Fatalf("no payment applied by channel alt: %v", raw)
	}
}

// TestServeRefusesTwoChannelsOfOneID: serve refuses to start on a providers
// file with two channels of one id, naming it among every other problem.
func TestServeRefusesTwoChannelsOfOneID(t *testing.T) {
	e := newE2E(t)
	const account = `"base_url": "https://api.example.com", "api_key": "k", "webhook_secret": "s"`
	file := t.TempDir() + "/providers.json"
	if err := os.WriteFile(file, []byte(`{"cryptohost": [{"id": "a", `+account+`}, {"id": "a", `+account+`}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e.serveRefused("GATEWAY_PROVIDERS_FILE="+file, "GATEWAY_CHANNELS_MAX=0")
	for _, want := range []string{`provider cryptohost: two channels with id "a"`, "channels-max 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve's refusal does not say %q:\n%s", want, out)
		}
	}
}
