package merchant

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// Every account change is a MULTI over the merchant directory's keys; on
// Redis Cluster they must share a slot (CROSSSLOT otherwise) and each must
// still bump the version every process polls.
func TestAccountChangesOnRedisCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	ctx := context.Background()
	s := NewStore(rdb)
	a, err := s.Create(ctx, NewAccount{Name: "cluster shop", Sandbox: true})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	version := func() string { return rdb.Get(ctx, schema.MerchantsVersionKey).Val() }
	changes := []struct {
		name   string
		change func() (*Account, error)
		check  func(*Account) bool
	}{
		{"callback", func() (*Account, error) { return s.SetCallback(ctx, a.AppID, "https://shop.test/hook") },
			func(b *Account) bool { return b.Callback == "https://shop.test/hook" }},
		{"rotate key", func() (*Account, error) { return s.RotateKey(ctx, a.AppID, time.Minute) },
			func(b *Account) bool { return b.APIKey != a.APIKey }},
		{"method limits", func() (*Account, error) {
			return s.SetMethodLimits(ctx, a.AppID, schema.MethodWalletA, schema.AmountLimits{Min: 100, Max: 9000})
		}, func(b *Account) bool { return b.MethodLimits[schema.MethodWalletA].Max == 9000 }},
		{"clear method limits", func() (*Account, error) { return s.ClearMethodLimits(ctx, a.AppID, schema.MethodWalletA) },
			func(b *Account) bool { return len(b.MethodLimits) == 0 }},
		// An account's first secret: EnsureWebhookSecret changes (and bumps)
		// only an account without one.
		{"first webhook secret", func() (*Account, error) {
			if err := rdb.HDel(ctx, schema.MerchantKey(a.AppID), fWHSecret).Err(); err != nil {
				return nil, err
			}
			return s.EnsureWebhookSecret(ctx, a.AppID)
		}, func(b *Account) bool { return b.WebhookSecret != "" }},
		{"disable", func() (*Account, error) { return s.SetDisabled(ctx, a.AppID, true) },
			func(b *Account) bool { return b.Disabled }},
	}
	for _, tt := range changes {
		t.Run(tt.name, func(t *testing.T) {
			before := version()
			b, err := tt.change()
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(b) {
				t.Fatalf("change not applied: %+v", b)
			}
			if version() == before {
				t.Fatal("version not bumped")
			}
		})
	}
	all, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, b := range all {
		found = found || b.AppID == a.AppID
	}
	if !found {
		t.Fatalf("%s not listed", a.AppID)
	}
}
