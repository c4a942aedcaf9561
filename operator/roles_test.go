package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/channel"

	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// TestWritesRefusedByRole: every change an operator can make, tried by each
// actor. The auditor and a merchant console user are refused every one,
// support is refused all but resending and handling exceptions (so never a
// USDT approve or reject), admin and the CLI are let through; a refusal is
// KindForbidden (403) and leaves Redis as it was: no rate, network or
// account changed, no audit entry.
func TestWritesRefusedByRole(t *testing.T) {
	ctx := context.Background()
	writes := []struct {
		name    string
		support bool // support may
		do      func(rdb redisClient, a access.Actor) error
	}{
		{"fx set", false, func(rdb redisClient, a access.Actor) error {
			_, err := newSettings(rdb).SetRate(ctx, a, "USDT", "CNY", "7.25", false)
			return err
		}},
		{"network set", false, func(rdb redisClient, a access.Actor) error {
			mode := "dual"
			_, err := newSettings(rdb).SetNetwork(ctx, a, NetworkChange{Name: "TRC20", Addresses: &[]string{"TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj"}, Mode: &mode})
			return err
		}},
		{"network remove", false, func(rdb redisClient, a access.Actor) error {
			return newSettings(rdb).RemoveNetwork(ctx, a, "BEP20", false)
		}},
		{"merchant create", false, func(rdb redisClient, a access.Actor) error {
			_, err := newMerchants(rdb).Create(ctx, a, merchant.NewAccount{Name: "Shop"})
			return err
		}},
		{"merchant disable", false, func(rdb redisClient, a access.Actor) error {
			_, err := newMerchants(rdb).SetDisabled(ctx, a, "1001", true, "fraud report")
			return err
		}},
		{"merchant credit", false, func(rdb redisClient, a access.Actor) error {
			_, err := newMerchants(rdb).Credit(ctx, a, "1001", "CNY", 10000, "")
			return err
		}},
		{"merchant limits", false, func(rdb redisClient, a access.Actor) error {
			_, err := newMerchants(rdb).SetLimits(ctx, a, "1001", merchant.LimitOverrides{Create: "5/s"})
			return err
		}},
		{"usdt approve", false, func(rdb redisClient, a access.Actor) error {
			_, err := newUSDTReviews(rdb).Approve(ctx, a, schema.NewOrderID(time.Now(), 3), "checked on tronscan")
			return err
		}},
		{"fees set", false, func(rdb redisClient, a access.Actor) error {
			_, err := NewFees(fees.NewStore(rdb)).Set(ctx, a, FeeChange{AppID: "1001", Method: "wallet_a", Currency: "USD",
				Input: fees.Input{Bps: "150", Fixed: "0.30"}})
			return err
		}},
		{"fees clear", false, func(rdb redisClient, a access.Actor) error {
			return NewFees(fees.NewStore(rdb)).Clear(ctx, a, FeeChange{Method: "wallet_a", Currency: "USD"})
		}},
		{"channel set", false, func(rdb redisClient, a access.Actor) error {
			_, err := newChannels(rdb).Edit(ctx, a, altRef, "channel.set", func(s *channel.Settings) error { s.Weight = 5; return nil })
			return err
		}},
		{"channel mode", false, func(rdb redisClient, a access.Actor) error {
			return newChannels(rdb).SetMode(ctx, a, false, schema.MethodWalletA, channel.ModeWeighted)
		}},
		{"channel pin", false, func(rdb redisClient, a access.Actor) error {
			return newChannels(rdb).SetPin(ctx, a, "1001", false, schema.MethodWalletA, []string{"alt"})
		}},
		{"channel keywords", false, func(rdb redisClient, a access.Actor) error {
			return newChannels(rdb).SetKeywords(ctx, a, []string{"account restricted"})
		}},
		{"channel breaker", false, func(rdb redisClient, a access.Actor) error {
			return newChannels(rdb).SetBreaker(ctx, a, altRef, channel.Open, "provider audit")
		}},
		{"merchant group", false, func(rdb redisClient, a access.Actor) error {
			return newChannels(rdb).SetGroup(ctx, a, "1001", "vip")
		}},
		{"usdt reject", false, func(rdb redisClient, a access.Actor) error {
			_, err := newUSDTReviews(rdb).Reject(ctx, a, schema.NewOrderID(time.Now(), 3), "wrong amount", "")
			return err
		}},
	}
	actors := []struct {
		name    string
		a       access.Actor
		allowed func(support bool) bool
	}{
		{"admin", opAdmin, func(bool) bool { return true }},
		{"cli", cliActor, func(bool) bool { return true }},
		{"support", opSupport, func(s bool) bool { return s }},
		{"auditor", opAuditor, func(bool) bool { return false }},
		{"merchant owner", mOwner, func(bool) bool { return false }},
	}
	for _, w := range writes {
		for _, ac := range actors {
			t.Run(w.name+"/"+ac.name, func(t *testing.T) {
				rdb := miniRedis(t)
				seed(t, rdb)
				before := snapshot(t, rdb)
				err := w.do(rdb, ac.a)
				if ac.allowed(w.support) {
					// The reviews' orders do not exist here: what matters is
					// that the role check let the call reach them.
					if usdt := strings.HasPrefix(w.name, "usdt"); (usdt && !isKind(err, platform.KindNotFound)) || (!usdt && err != nil) {
						t.Fatalf("%s: %v", ac.name, err)
					}
					if rows := auditRows(t, rdb); !strings.HasPrefix(w.name, "usdt") && (len(rows) != 1 || rows[0].Realm != ac.a.Realm || rows[0].ActorID != ac.a.ID) {
						t.Fatalf("audit after %s by %s: %+v, want one entry of theirs", w.name, ac.name, rows)
					}
					return
				}
				if !isKind(err, platform.KindForbidden) {
					t.Fatalf("%s: %v, want forbidden", ac.name, err)
				}
				if platform.Status(platform.KindForbidden) != 403 {
					t.Fatalf("forbidden maps to %d", platform.Status(platform.KindForbidden))
				}
				if after := snapshot(t, rdb); after != before {
					t.Fatalf("refused, yet Redis changed:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// seed is a merchant 1001, a rate, a BEP20 network and a default fee to change.
func seed(t *testing.T, rdb redisClient) {
	t.Helper()
	ctx := context.Background()
	if _, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: "Shop"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.NewStore(rdb).Set(ctx, fx.Pair{Base: "USDT", Quote: "CNY"}, fx.Rate(7_200_000), "seed"); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, schema.FeesKey, schema.FeeField("", schema.MethodWalletA, "USD"), "100:0:0:0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := usdt.NewStore(rdb).Set(ctx, usdt.Network{Name: "BEP20", Addresses: []string{"0x" + "ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12"}}); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every key with its type and size: what a refused write must
// leave as it was.
func snapshot(t *testing.T, rdb redisClient) string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, k := range sortedStrings(keys) {
		typ, _ := rdb.Type(ctx, k).Result()
		var dump string
		switch typ {
		case "hash":
			h, _ := rdb.HGetAll(ctx, k).Result()
			dump = sortedMap(h)
		case "list":
			l, _ := rdb.LRange(ctx, k, 0, -1).Result()
			dump = sortedMap(map[string]string{"n": itoa(len(l))})
		case "stream":
			n, _ := rdb.XLen(ctx, k).Result()
			dump = itoa(int(n))
		default:
			dump, _ = rdb.Get(ctx, k).Result()
		}
		out += k + "=" + dump + ";"
	}
	return out
}
