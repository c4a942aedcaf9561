package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/internal/apitest"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/web/server"
)

// TestBalanceReadsOnlyTheKeysMerchant: two merchants with money; each
// query key reads its own merchant's balances and transactions, and no
// combination of the other's appid, key or a parameter reaches the other's.
func TestBalanceReadsOnlyTheKeysMerchant(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	store := merchant.NewStore(rdb)
	a, _ := store.Create(ctx, merchant.NewAccount{Name: "a"})
	b, _ := store.Create(ctx, merchant.NewAccount{Name: "b"})
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	refs := map[string]map[string]bool{}
	for i, m := range []*merchant.Account{a, b} {
		mix := fixture.PostLedgerMix(t, j, m.AppID, day.AddDate(0, 0, i))
		refs[m.AppID] = map[string]bool{m.AppID + "-1": true}
		for _, o := range mix.Orders {
			refs[m.AppID][o.ID], refs[m.AppID]["rf"+o.ID[1:]] = true, true
		}
	}
	fixture.ProjectJournal(t, rdb, ch)
	journaltest.Check(t, rdb)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := merchant.NewDirectory(store, log, 0)
	bal, err := query.NewBalances(query.Config{PublicURL: testBase}, dir, j, query.NewStatements(ch), nil)
	if err != nil {
		t.Fatal(err)
	}
	app := server.NewApp(log, prometheus.NewRegistry(), prometheus.NewRegistry())
	app.Get("/api/balance", Balance(bal))
	get := func(q url.Values) *apitest.Response {
		t.Helper()
		res, err := app.Test(httptest.NewRequest("GET", "/api/balance?"+q.Encode(), nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		return apitest.Decode(t, res)
	}
	refused := []struct {
		name   string
		q      url.Values
		status int
		kind   string
	}{
		{"a's appid, b's key", url.Values{"appid": {a.AppID}, "key": {b.QueryKey}}, 401, "invalid_key"},
		{"b's appid, a's key, transactions", url.Values{"appid": {b.AppID}, "key": {a.QueryKey}, "action": {"transactions"}}, 401, "invalid_key"},
		{"the API key instead of the query key", url.Values{"appid": {a.AppID}, "key": {a.APIKey}}, 401, "invalid_key"},
		{"unknown appid", url.Values{"appid": {"999999"}, "key": {a.QueryKey}}, 401, "invalid_appid"},
		{"another merchant named in a parameter", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "merchant": {b.AppID}}, 400, "invalid_parameter"},
		{"a cursor not given", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"transactions"}, "cursor": {"eHl6"}}, 400, "invalid_parameter"},
		{"unknown type", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"transactions"}, "type": {"payout"}}, 400, "invalid_parameter"},
		{"unknown action", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"orders"}}, 400, "invalid_parameter"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := get(tt.q)
			if r.Status != tt.status || r.Body.Error != tt.kind || string(r.Body.Data) != "" && string(r.Body.Data) != "null" {
				t.Fatalf("%d %s, want %d %s: %s", r.Status, r.Body.Error, tt.status, tt.kind, r.Raw)
			}
		})
	}
	for _, m := range []*merchant.Account{a, b} {
		t.Run("own "+m.Name, func(t *testing.T) {
			r := get(url.Values{"appid": {m.AppID}, "key": {m.QueryKey}})
			var got []query.BalanceView
			if err := json.Unmarshal(r.Body.Data, &got); r.Status != 200 || err != nil {
				t.Fatalf("%d %v: %s", r.Status, err, r.Raw)
			}
			want, _ := j.Balances(ctx, m.AppID)
			if len(got) != len(want) {
				t.Fatalf("balances %+v, want %+v", got, want)
			}
			for i := range want {
				if got[i].Currency != want[i].Currency || got[i].Total != want[i].Total().String() || got[i].Pending != want[i].Pending.String() {
					t.Errorf("balance %+v, want %+v", got[i], want[i])
				}
			}
			var rows []query.TransactionView
			for cursor := ""; ; {
				q := url.Values{"appid": {m.AppID}, "key": {m.QueryKey}, "action": {"transactions"}, "limit": {"4"}}
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				r := get(q)
				var p query.TransactionsView
				if err := json.Unmarshal(r.Body.Data, &p); r.Status != 200 || err != nil {
					t.Fatalf("%d %v: %s", r.Status, err, r.Raw)
				}
				rows = append(rows, p.Transactions...)
				if cursor = p.NextCursor; cursor == "" {
					break
				}
			}
			if len(rows) != 11 {
				t.Errorf("%d transactions, want 11", len(rows))
			}
			for _, x := range rows {
				if !refs[m.AppID][x.Ref] {
					t.Errorf("merchant %s reads %+v", m.AppID, x)
				}
			}
		})
	}
}
