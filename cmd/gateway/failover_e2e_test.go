package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// TestRestrictedChannelFailsOverEndToEnd: the real binary with the demo's
// keyword list and two sandbox channels of wallet_a. One simulator turns
// restricted mid-run: every order created after it still gets a working
// payment page from the other channel; the first one's failed attempt is on
// its timeline (the notification log) and the keyword opens the restricted
// channel's breaker at once, which `gateway channel list` shows with why.
func TestRestrictedChannelFailsOverEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.run("channel", "keywords", sandbox.RestrictedPhrases()[schema.MethodWalletA])
	s := e.serve()
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	alt := s.base + sandbox.SimPath(schema.MethodWalletA, "alt") + "/"
	def := s.base + sandbox.SimPath(schema.MethodWalletA, "default") + "/"

	create := func() (id, page string) {
		t.Helper()
		r := s.create(t, createParams(shop.AppID), shop.APIKey)
		if r.Status != 200 || r.Data["statusString"] != "ready" {
			t.Fatalf("create: %+v", r)
		}
		id = r.Data["paymentId"].(string)
		shard, _ := schema.ParseOrderID(id)
		f, err := rdb.HMGet(ctx, schema.OrderKey(shard, id), schema.FProviderURL, schema.FQRPayload).Result()
		if err != nil {
			t.Fatal(err)
		}
		// wallet_a's page is the QR payload the payer scans, a page of
		// the channel's simulator.
		page, _ = f[0].(string)
		if page == "" {
			page, _ = f[1].(string)
		}
		res, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("order %s: payment page %s answers %d", id, page, res.StatusCode)
		}
		return id, page
	}
	if _, page := create(); !strings.HasPrefix(page, def) {
		t.Fatalf("before the fault: page %s, want the default channel's", page)
	}
	e.run("sandbox", "fault", "wallet_a", "default", "restricted")
	var first string
	for i := range 10 {
		id, page := create()
		if !strings.HasPrefix(page, alt) {
			t.Fatalf("order %d after the fault: page %s, want the alt channel's (%s)", i, page, alt)
		}
		if i == 0 {
			first = id
		}
	}
	shard, _ := schema.ParseOrderID(first)
	raw, err := rdb.LRange(ctx, schema.NotificationsKey(shard, first), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var tried bool
	for _, line := range raw {
		var rec schema.NotificationRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Mode == "init" && rec.Channel == "default" &&
			rec.Verdict == schema.VerdictInitFailed {
			tried = true
		}
	}
	if !tried {
		t.Fatalf("the first order after the fault has no failed attempt on the default channel: %v", raw)
	}
	var list struct {
		Channels []channelRow `json:"channels"`
	}
	e.cli(&list, "channel", "list", "--json")
	var state string
	for _, c := range list.Channels {
		if c.Channel == "sandbox.wallet_a.default" {
			state = c.State + ": " + c.Reason
		}
	}
	if !strings.HasPrefix(state, "open") || !strings.Contains(state, "keyword") {
		t.Fatalf("the restricted channel's breaker: %q, want open on the keyword", state)
	}
}
