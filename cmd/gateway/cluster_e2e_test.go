package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestClusterEndToEnd runs the real binary with GATEWAY_CLICKHOUSE_CLUSTER
// against the ClickHouse cluster of `make test-cluster`: migrate builds the
// sharded tables on every node, serve projects through the Distributed
// table, each merchant's orders land on one node, and the listing, read
// through the Distributed table, shows a paid order once, paid.
func TestClusterEndToEnd(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	t.Setenv("GATEWAY_CLICKHOUSE_CLUSTER", c.Name)
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: c.DSN(0)}
	e.run("migrate")
	e.run("migrate")
	shops := make([]account, 4)
	for i := range shops {
		e.cli(&shops[i], "merchant", "create", "--name", fmt.Sprintf("shop %d", i), "--sandbox", "--json")
	}
	s := e.serve()
	for _, shop := range shops {
		var ids []string
		for range 3 {
			r := s.create(t, createParams(shop.AppID), shop.APIKey)
			if r.Status != 200 {
				t.Fatalf("create: %+v", r)
			}
			ids = append(ids, r.Data["paymentId"].(string))
		}
		if r := s.sandbox(t, shop.AppID, shop.QueryKey, ids[0], "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
			t.Fatalf("sandbox pay: %+v", r)
		}
	}
	for _, shop := range shops {
		testenv.Eventually(t, 10*time.Second, "condition", func() bool {
			l := s.list(t, shop.AppID, shop.QueryKey, "limit=2&page=2")
			listed, _ := l.Data["orders"].([]any)
			return l.Status == 200 && l.Data["total"] == 3.0 && len(listed) == 1
		})
		testenv.Eventually(t, 10*time.Second, "condition", func() bool {
			l := s.list(t, shop.AppID, shop.QueryKey, "status=paid")
			listed, _ := l.Data["orders"].([]any)
			if l.Status != 200 || l.Data["total"] != 1.0 || len(listed) != 1 {
				return false
			}
			o, _ := listed[0].(map[string]any)
			return o["status"] == 2.0
		})
	}
	holders := map[string]int{}
	for _, addr := range c.Nodes {
		node, err := clickhouse.Open(&clickhouse.Options{Addr: []string{addr}, Auth: clickhouse.Auth{Database: c.DB}})
		if err != nil {
			t.Fatal(err)
		}
		defer node.Close()
		for _, shop := range shops {
			var n uint64
			if err := node.QueryRow(context.Background(), "SELECT uniqExact(id) FROM "+schema.OrdersLocalTable+" WHERE appid = ?", shop.AppID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			switch n {
			case 0:
			case 3:
				holders[shop.AppID]++
			default:
				t.Fatalf("node %s holds %d of merchant %s's 3 orders", addr, n, shop.AppID)
			}
		}
	}
	for _, shop := range shops {
		if holders[shop.AppID] != 1 {
			t.Fatalf("merchant %s's orders are on %d nodes", shop.AppID, holders[shop.AppID])
		}
	}
}
