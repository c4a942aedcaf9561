package main

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestEndToEndOnRedisCluster runs the binary on a 3-master Redis Cluster
// (GATEWAY_TEST_REDIS_CLUSTER_URL; skipped without one): every CLI command
// that writes more than one key (merchant create and changes, fx set, usdt
// config set) and a server doing create, sandbox and balance payments, the
// listing (the projector reading every shard stream wherever it lives) and
// a webhook (the dispatcher). Any CROSSSLOT or stream left unread fails it.
//
// A cluster has one keyspace, shared by every test pointed at it: the test
// uses a fresh merchant and counts only its orders.
func TestEndToEndOnRedisCluster(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisClusterURL(t), chDSN: testenv.ClickHouseDSN(t)}
	t.Setenv("GATEWAY_REDIS_CLUSTER", "true")
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "cluster shop", "--sandbox", "--json")
	e.cli(&shop, "merchant", "set-callback", shop.AppID, "http://127.0.0.1:9/hook", "--json")
	e.cli(&shop, "merchant", "rotate-key", shop.AppID, "--json")
	var credited map[string]string
	e.cli(&credited, "merchant", "credit", shop.AppID, "--currency", "USD", "--amount", "20.00", "--json")
	if credited["balance"] != "20.00" || shop.Callback != "http://127.0.0.1:9/hook" {
		t.Fatalf("account %+v, credit %v", shop, credited)
	}
	e.cli(nil, "fx", "set", "USD", "EUR", "0.92", "--json")
	evm := "0x" + strings.Repeat("c1", 20)
	e.cli(nil, "usdt", "config", "set", "BEP20", "--sandbox", "--address", evm, "--json")
	t.Cleanup(func() { e.run("usdt", "config", "remove", "BEP20", "--sandbox") })

	s := e.serve()
	for i := range 5 { // orders on several shards, each paid in the sandbox
		r := s.create(t, createParams(shop.AppID), shop.APIKey)
		id, _ := r.Data["paymentId"].(string)
		if r.Status != 200 || id == "" {
			t.Fatalf("create %d: %+v", i, r)
		}
		if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
			t.Fatalf("sandbox pay %d: %+v", i, r)
		}
	}
	bp := createParams(shop.AppID)
	bp["paymentMethod"], bp["currency"], bp["amount"] = "balance", "USD", "15"
	if r := s.create(t, bp, shop.APIKey); r.Status != 200 || r.Data["paidWithBalance"] != true {
		t.Fatalf("balance: %+v", r)
	}
	checkWebhook(t, s, shop) // one more paid order, its webhook delivered by the dispatcher

	testenv.Eventually(t, 20*time.Second, "condition", func() bool {
		l := s.list(t, shop.AppID, shop.QueryKey, "status=paid&limit=50")
		listed, _ := l.Data["orders"].([]any)
		return l.Status == 200 && l.Data["total"] == 7.0 && len(listed) == 7
	})
}
