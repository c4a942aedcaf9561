package payout

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// payoutEnv is a Store on the real Redis when the Makefile started one
// (the scripts' arithmetic is Redis's Lua), else on miniredis, with a
// clock the test moves and the journal's invariants checked at the end.
type payoutEnv struct {
	s   *Store
	j   *journal.Journal
	rdb redis.UniversalClient
	now time.Time
}

func newEnv(t *testing.T, cfg Config) *payoutEnv {
	t.Helper()
	var rdb redis.UniversalClient
	if os.Getenv("GATEWAY_TEST_REDIS_URL") != "" {
		rdb = testenv.Redis(t)
	} else {
		mr := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { c.Close() })
		rdb = c
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &payoutEnv{j: j, rdb: rdb, now: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	cfg.Now = func() time.Time { return e.now }
	if e.s, err = New(cfg, rdb, j, nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return e
}

func entry(actor string) audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: actor, Realm: audit.RealmMerchant, Role: "owner", Action: "payout.test", Source: "127.0.0.1"}
}

// usable adds a destination of appid and lets its cooling-off pass.
func (e *payoutEnv) usable(t *testing.T, d Destination) Destination {
	t.Helper()
	got, err := e.s.AddDestination(context.Background(), d, "merchant:u1", entry("u1"))
	if err != nil {
		t.Fatalf("add destination: %v", err)
	}
	e.now = e.now.Add(e.s.cfg.CoolingOff)
	return got
}

func (e *payoutEnv) balance(t *testing.T, appid, cur string) journal.Balance {
	t.Helper()
	b, err := e.j.Balance(context.Background(), appid, cur)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bank(appid string) Destination {
	return Destination{AppID: appid, Kind: Bank, Holder: "Ana Pérez", Bank: "Banco Uno", Account: "ES9121000418450200051332"}
}

func usdtTRC(appid string) Destination {
	return Destination{AppID: appid, Kind: TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}
}

func money(t *testing.T, s string) schema.Amount {
	t.Helper()
	if s == "0.00" {
		return 0
	}
	a, err := schema.ParseAmount(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
