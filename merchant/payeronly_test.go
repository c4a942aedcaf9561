package merchant

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// TestPayerOnly: an account made to pay keeps the mark, and one made
// before the mark was kept can be given it; a merchant has none.
func TestPayerOnly(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	s := NewStore(rdb)
	payer, err := s.Create(ctx, NewAccount{Name: "Demo payer", Sandbox: true, PayerOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	old, err := s.Create(ctx, NewAccount{Name: "Older demo payer", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	shop, err := s.Create(ctx, NewAccount{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkPayerOnly(ctx, old.AppID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, appid string
		want        bool
	}{{"made to pay", payer.AppID, true}, {"marked later", old.AppID, true}, {"a merchant", shop.AppID, false}} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := s.Get(ctx, tc.appid)
			if err != nil || a.PayerOnly != tc.want {
				t.Errorf("payer only %v (%v), want %v", a != nil && a.PayerOnly, err, tc.want)
			}
		})
	}
}
