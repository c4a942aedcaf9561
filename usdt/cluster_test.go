package usdt

import (
	"context"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// The networks and their version are changed together (Set is a MULTI) and
// read together (Seed's EXISTS): on Redis Cluster they must share a slot.
func TestSettingsOnRedisCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	ctx := context.Background()
	st := NewStore(rdb)
	n := Network{Name: "BEP20", Addresses: []string{evmOf(7)}, Sandbox: true}
	before := rdb.Get(ctx, schema.USDTConfigVersionKey).Val()
	if err := st.Set(ctx, n); err != nil {
		t.Fatalf("set: %v", err)
	}
	if rdb.Get(ctx, schema.USDTConfigVersionKey).Val() == before {
		t.Fatal("version not bumped")
	}
	nets, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, got := range nets {
		found = found || (got.Key() == n.Key() && got.Addresses[0] == evmOf(7))
	}
	if !found {
		t.Fatalf("%s not listed in %+v", n.Key(), nets)
	}
	if seeded, err := st.Seed(ctx, []Network{{Name: "TRC20", Addresses: []string{tronOf(9)}, Sandbox: true}}); err != nil || seeded {
		t.Fatalf("seed over a configured store: seeded %v, %v", seeded, err)
	}
	if err := st.Remove(ctx, "BEP20", true); err != nil {
		t.Fatalf("remove: %v", err)
	}
}
