package merchant

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// newStore is the account store over miniredis, for the tests of its plain
// commands and of the directory. Tests that run credit.lua use
// newRedisStore: miniredis's Lua engine is not Redis's.
func newStore(t *testing.T) (*Store, *miniredis.Miniredis) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return NewStore(rdb), mr
}

// newRedisStore is the account store over a database of this test's own on
// the real Redis (internal/testenv).
func newRedisStore(t *testing.T) *Store {
	t.Helper()
	return NewStore(testenv.Redis(t))
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestCreateAndChangeAccounts(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, NewAccount{Name: "shop", Callback: "https://shop.test/hook", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.APIKey) < 32 || !uuidV4.MatchString(a.QueryKey) || a.AppID != "1001" || !a.Sandbox {
		t.Fatalf("new account %+v", a)
	}
	b, _ := s.Create(ctx, NewAccount{Name: "other"})
	if b.AppID == a.AppID || b.APIKey == a.APIKey || b.QueryKey == a.QueryKey {
		t.Fatal("credentials repeat across accounts")
	}
	tests := []struct {
		name  string
		do    func() (*Account, error)
		check func(*Account) bool
	}{
		{"disable", func() (*Account, error) { return s.SetDisabled(ctx, a.AppID, true) }, func(x *Account) bool { return x.Disabled }},
		{"enable", func() (*Account, error) { return s.SetDisabled(ctx, a.AppID, false) }, func(x *Account) bool { return !x.Disabled }},
		{"set callback", func() (*Account, error) { return s.SetCallback(ctx, a.AppID, "https://new.test/h") }, func(x *Account) bool { return x.Callback == "https://new.test/h" }},
		{"clear callback", func() (*Account, error) { return s.SetCallback(ctx, a.AppID, "") }, func(x *Account) bool { return x.Callback == "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.do()
			if err != nil || !tt.check(got) {
				t.Fatalf("%+v %v", got, err)
			}
		})
	}
	if _, err := s.SetCallback(ctx, a.AppID, "ftp://x"); err == nil {
		t.Error("ftp callback accepted")
	}
	if _, err := s.SetDisabled(ctx, "9999", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown appid: %v", err)
	}
	all, err := s.List(ctx)
	if err != nil || len(all) != 2 || all[0].AppID != a.AppID {
		t.Fatalf("list: %v %v", all, err)
	}
}

func TestRotateKeyGrace(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	a, _ := s.Create(ctx, NewAccount{Name: "shop"})
	r, err := s.RotateKey(ctx, a.AppID, time.Hour)
	if err != nil || r.APIKey == a.APIKey {
		t.Fatalf("rotate: %+v %v", r, err)
	}
	if keys := r.SignKeys(now.Add(59 * time.Minute)); len(keys) != 2 || keys[1] != a.APIKey {
		t.Fatalf("within grace: %v", keys)
	}
	if keys := r.SignKeys(now.Add(61 * time.Minute)); len(keys) != 1 || keys[0] != r.APIKey {
		t.Fatalf("after grace: %v", keys)
	}
	r2, _ := s.RotateKey(ctx, a.AppID, 0)
	if keys := r2.SignKeys(now); len(keys) != 1 || keys[0] != r2.APIKey {
		t.Fatalf("rotation without grace keeps old keys: %v", keys)
	}
}

// TestBalancesReadTheJournal: what a payer can spend is the available
// bucket of the journal's accounts, the other buckets aside.
func TestBalancesReadTheJournal(t *testing.T) {
	s := newRedisStore(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, NewAccount{Name: "shop"})
	s.rdb.HSet(ctx, schema.AccountsKey(a.AppID), "available:USD", 100_50, "pending:USD", 7, "pending:CNY", 9, "available:CNY", 3)
	s.rdb.HSet(ctx, schema.BalanceKey(a.AppID), "USD", 1) // before the journal: never read
	got, err := s.Balances(ctx, a.AppID)
	if err != nil || len(got) != 2 || got["USD"] != 100_50 || got["CNY"] != 3 {
		t.Fatalf("balances %v %v", got, err)
	}
}

func TestDirectorySeesChangesWithinAPoll(t *testing.T) {
	s, _ := newStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, _ := s.Create(ctx, NewAccount{Name: "shop"})
	d := NewDirectory(s, slog.New(slog.NewTextHandler(io.Discard, nil)), 20*time.Millisecond)
	go d.Run(ctx)
	if got, err := d.AuthQuery(ctx, a.AppID, a.QueryKey); err != nil || got.Disabled {
		t.Fatalf("auth: %v %v", got, err)
	}
	if _, err := d.Lookup(ctx, "424242"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown appid: %v", err)
	}
	if _, err := s.SetDisabled(ctx, a.AppID, true); err != nil {
		t.Fatal(err)
	}
	late, _ := s.Create(ctx, NewAccount{Name: "late"})
	deadline := time.Now().Add(time.Second)
	for {
		_, err := d.AuthQuery(ctx, a.AppID, a.QueryKey)
		var de *platform.Error
		_, lerr := d.Lookup(ctx, late.AppID)
		if errors.As(err, &de) && de.Kind == platform.KindMerchantDisabled && lerr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("change not seen within a second: %v / %v", err, lerr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tests := []struct {
		name, appid, key string
		kind             platform.Kind
	}{
		{"empty key", a.AppID, "", platform.KindInvalidKey},
		{"wrong key", late.AppID, a.QueryKey, platform.KindInvalidKey},
		{"unknown appid", "424242", a.QueryKey, platform.KindInvalidAppID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.AuthQuery(ctx, tt.appid, tt.key)
			var de *platform.Error
			if !errors.As(err, &de) || de.Kind != tt.kind {
				t.Fatalf("err %v, want %s", err, tt.kind)
			}
		})
	}
}
