package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// TestRestrictedChannelFailsOverEndToEnd: the real binary with the demo's
// keyword list and two sandbox channels of wallet_a, four merchants' worth
// of creates running throughout. One simulator turns restricted mid-run:
// every order of the run gets a working payment page, those begun after
// the switch from the other channel; the orders that met the restriction
// have the failed attempt on their timeline (the notification log), and the
// keyword opens the restricted channel's breaker at once, which `gateway
// channel list` shows with why.
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

	// pageOf creates an order and opens its payment page: wallet_a's page
	// is the QR payload the payer scans, a page of the channel's simulator.
	pageOf := func() (id, page string, err error) {
		r := s.create(t, createParams(shop.AppID), shop.APIKey)
		if r.Status != 200 || r.Data["statusString"] != "ready" {
			return "", "", fmt.Errorf("create: %+v", r)
		}
		id = r.Data["paymentId"].(string)
		shard, _ := schema.ParseOrderID(id)
		f, err := rdb.HMGet(ctx, schema.OrderKey(shard, id), schema.FProviderURL, schema.FQRPayload).Result()
		if err != nil {
			return id, "", err
		}
		page, _ = f[0].(string)
		if page == "" {
			page, _ = f[1].(string)
		}
		res, err := http.Get(page)
		if err != nil {
			return id, page, err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return id, page, fmt.Errorf("order %s: payment page %s answers %d", id, page, res.StatusCode)
		}
		return id, page, nil
	}
	// Merchants keep creating while the account turns restricted: every
	// order of the run, the ones in flight at the switch included, must
	// get a working page.
	type made struct {
		id, page   string
		afterFault bool
	}
	var (
		mu      sync.Mutex
		orders  []made
		faulted atomic.Bool
		stop    atomic.Bool
		wg      sync.WaitGroup
	)
	count := func(after bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, o := range orders {
			if o.afterFault == after {
				n++
			}
		}
		return n
	}
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				after := faulted.Load()
				id, page, err := pageOf()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				orders = append(orders, made{id, page, after})
				mu.Unlock()
			}
		})
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !ok() {
			if t.Failed() || time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("20 orders before the fault", func() bool { return count(false) >= 20 })
	e.run("sandbox", "fault", "wallet_a", "default", "restricted")
	faulted.Store(true)
	waitFor("40 orders begun after the fault", func() bool { return count(true) >= 40 })
	stop.Store(true)
	wg.Wait()
	if t.Failed() {
		return
	}
	var tried, onDefault int
	for i, o := range orders {
		switch {
		case o.afterFault && !strings.HasPrefix(o.page, alt):
			t.Fatalf("order %d, begun after the fault: page %s, want the alt channel's (%s)", i, o.page, alt)
		case !o.afterFault && strings.HasPrefix(o.page, def):
			onDefault++
		}
		if initFailedOn(t, rdb, o.id, "default") {
			tried++
		}
	}
	if onDefault == 0 {
		t.Fatal("no order before the fault was served by the default channel")
	}
	// The keyword opens the breaker at once: the orders that met the
	// restriction are those in flight then, never all that followed.
	if tried == 0 || tried > 8 {
		t.Fatalf("%d orders have a failed attempt on the default channel, want 1 to 8 (one per create in flight at the switch)", tried)
	}
	t.Logf("%d orders, %d before the fault (%d on default), %d met the restriction and failed over", len(orders), len(orders)-count(true), onDefault, tried)
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

// initFailedOn reports whether the order's timeline (its notification log)
// holds a failed initialisation on the channel.
func initFailedOn(t *testing.T, rdb redis.UniversalClient, id, channel string) bool {
	t.Helper()
	shard, _ := schema.ParseOrderID(id)
	raw, err := rdb.LRange(context.Background(), schema.NotificationsKey(shard, id), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range raw {
		var rec schema.NotificationRecord
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Mode == "init" && rec.Channel == channel &&
			rec.Verdict == schema.VerdictInitFailed {
			return true
		}
	}
	return false
}
