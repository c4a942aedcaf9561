package operator

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// Actors of the tests: one operator of each role, a merchant owner (the
// other realm) and the CLI.
var (
	opAdmin   = access.Actor{ID: "u1", Email: "ann@ops.test", Realm: audit.RealmOperator, Role: access.RoleAdmin, Source: "192.0.2.1"}
	opSupport = access.Actor{ID: "u2", Email: "sam@ops.test", Realm: audit.RealmOperator, Role: access.RoleSupport, Source: "192.0.2.2"}
	opAuditor = access.Actor{ID: "u3", Email: "al@ops.test", Realm: audit.RealmOperator, Role: access.RoleAuditor, Source: "192.0.2.3"}
	mOwner    = access.Actor{ID: "u4", Email: "o@shop.test", Realm: audit.RealmMerchant, Role: access.RoleOwner, AppID: "1001", Source: "192.0.2.4"}
	cliActor  = access.Actor{ID: "root", Realm: audit.RealmCLI, Source: "cli"}
)

func miniRedis(t *testing.T) redis.UniversalClient {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// auditRows is every entry of the {audit} and {merchants} streams (a
// merchant field change appends to the latter in its own MULTI), each
// stream oldest first.
func auditRows(t *testing.T, rdb redis.UniversalClient) []audit.Row {
	t.Helper()
	var out []audit.Row
	for _, s := range schema.AuditStreams() {
		rows, err := audit.Read(context.Background(), rdb, s, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

func isKind(err error, k platform.Kind) bool {
	var pe *platform.Error
	return errors.As(err, &pe) && pe.Kind == k
}

type redisClient = redis.UniversalClient

func newSettings(rdb redisClient) *Settings {
	s, err := NewSettings(SettingsDefaults(), fx.NewStore(rdb), usdt.NewStore(rdb), audit.NewLog(rdb))
	if err != nil {
		panic(err)
	}
	return s
}

func newMerchants(rdb redisClient) *Merchants {
	return NewMerchants(merchant.NewStore(rdb), audit.NewLog(rdb), dispatcher.NewDestinations(false)).WithJournal(testJournal(rdb))
}

func newUSDTReviews(rdb redisClient) *USDTReviews {
	store := command.NewStore(rdb, 30*time.Minute, time.Hour)
	return NewUSDTReviews(command.NewUSDTReview(store), command.NewUSDTBacklog(store), audit.NewLog(rdb))
}

func sortedStrings(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func sortedMap(m map[string]string) string {
	out := ""
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out += k + ":" + m[k] + ","
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// testJournal is the journal top-ups post to.
func testJournal(rdb redisClient) *journal.Journal {
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		panic(err)
	}
	return j
}
