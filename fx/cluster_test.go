package fx

import (
	"context"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// Setting a rate is one MULTI over the rates and the history: on Redis
// Cluster both keys must share a slot.
func TestSetOnRedisCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	ctx := context.Background()
	s := NewStore(rdb)
	p, ok := ParsePair("USDT:CNY")
	if !ok {
		t.Fatal("pair")
	}
	r, err := ParseRate("7.31")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, p, r, "cluster-test"); err != nil {
		t.Fatalf("set: %v", err)
	}
	rates, _, err := s.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rates[p] != r {
		t.Fatalf("current %v, want %v", rates[p], r)
	}
	h, err := s.History(ctx, 1)
	if err != nil || len(h) != 1 || h[0].By != "cluster-test" {
		t.Fatalf("history %+v, %v", h, err)
	}
}
