package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
)

// TestAuditLogProjectedByServe: the projector role copies the audit
// streams into ClickHouse, where the consoles' audit log searches them: an
// entry appended to Redis is found by the search while serve runs.
func TestAuditLogProjectedByServe(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	e.run("migrate")
	e.serve()
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	if _, err := audit.NewLog(rdb).Append(ctx, audit.Entry{At: time.Now(), Realm: audit.RealmCLI, Action: "merchant.rotate_api_key",
		Target: "merchant:1001", AppID: "1001", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(e.chDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	s := audit.NewSearcher(ch)
	testenv.Eventually(t, 30*time.Second, "the entry in ClickHouse", func() bool {
		p, err := s.Search(ctx, audit.Filter{AppID: "1001", Action: "merchant.rotate_api_key"})
		return err == nil && p.Total == 1
	})
}
