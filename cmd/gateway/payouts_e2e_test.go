package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// TestPayoutAPI: the running binary's POST /api/payouts, GET /api/payouts
// and GET /api/payouts/{id} answer as the document it serves describes;
// a replayed signed request (one requestId) holds once, one signed outside
// the timestamp window or without a requestId is refused, another
// merchant's destination or payout is 404, two concurrent requests for
// more than half the balance spend it once, and the merchant's minimum and
// fee apply. The journal holds its invariants after.
func TestPayoutAPI(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "other", "--sandbox", "--json")
	e.cli(nil, "merchant", "terms", shop.AppID, "--payout-currency", "USD", "--payout-min", "5.00", "--payout-fee", "1.00", "--json")
	s := e.serve()
	v := s.openAPIValidator(t)
	rdb := testenv.Client(t, e.redisURL)
	jr, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fixture.PostLedgerMix(t, jr, shop.AppID, time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3))
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	dest := addDestinations(t, rdb, jr, shop.AppID, other.AppID)
	seq := 0
	signed := func(reqID string, at time.Time, p schema.Params) []byte {
		t.Helper()
		if reqID == "" {
			seq++
			reqID = fmt.Sprintf("auto-%d", seq)
		}
		p["appid"], p["requestId"], p["timestamp"] = shop.AppID, reqID, strconv.FormatInt(at.Unix(), 10)
		p["sign"] = schema.Sign(p, shop.APIKey)
		raw, _ := json.Marshal(p)
		return raw
	}
	post := func(key string, raw []byte) *http.Request {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.base+"/api/payouts", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		return req
	}
	ask := func(reqID string, p schema.Params) *http.Request {
		t.Helper()
		return post("", signed(reqID, time.Now(), p))
	}
	get := func(path string, acct account, q url.Values) *http.Request {
		if q == nil {
			q = url.Values{}
		}
		q.Set("appid", acct.AppID)
		q.Set("key", acct.QueryKey)
		req, _ := http.NewRequest(http.MethodGet, s.base+path+"?"+q.Encode(), nil)
		return req
	}
	usd := func(amount string) schema.Params {
		return schema.Params{"destination": dest.mine, "amount": amount, "currency": "USD"}
	}

	captured := signed("po-1", time.Now(), usd("10.00"))
	first := validate(t, v, post("", captured), 200)
	again := validate(t, v, post("", captured), 200)
	if first.Data["id"] == nil || again.Data["id"] != first.Data["id"] || first.Data["fee"] != "1.00" || first.Data["state"] != "requested" {
		t.Fatalf("replayed request answered %v, first %v", again.Data, first.Data)
	}
	if !again.Replayed {
		t.Fatal("a replay is not marked Idempotent-Replayed")
	}
	if hold := balanceOf(t, jr, shop.AppID).PayoutHold; hold != 11_00 {
		t.Fatalf("payout hold %s after a replayed request, want 11.00 once", hold)
	}
	id, _ := first.Data["id"].(string)
	cases := []struct {
		name   string
		req    *http.Request
		status int
		kind   string
	}{
		{"the key with another amount", ask("po-1", usd("12.00")), 409, "idempotency_mismatch"},
		{"below the merchant's minimum", ask("", usd("4.99")), 400, "below_minimum"},
		{"signed six minutes ago", post("", signed("", time.Now().Add(-6*time.Minute), usd("10.00"))), 400, "invalid_parameter"},
		{"signed six minutes ahead", post("", signed("", time.Now().Add(6*time.Minute), usd("10.00"))), 400, "invalid_parameter"},
		{"without a requestId", post("", unsignedID(t, shop, usd("10.00"))), 400, "missing_parameter"},
		{"an Idempotency-Key other than the requestId", post("other", signed("", time.Now(), usd("10.00"))), 400, "invalid_parameter"},
		{"a requestId with a space", ask("po 2", usd("10.00")), 400, "invalid_parameter"},
		{"another merchant's destination", ask("", schema.Params{"destination": dest.theirs, "amount": "10.00", "currency": "USD"}), 404, "order_not_found"},
		{"a destination cooling off", ask("", schema.Params{"destination": dest.cooling, "amount": "10.00", "currency": "USD"}), 409, "conflict"},
		{"USDT from a EUR balance", ask("", schema.Params{"destination": dest.mine, "amount": "10.00", "currency": "EUR"}), 400, "invalid_parameter"},
		{"more than available", ask("", usd("100000.00")), 422, "insufficient_balance"},
		{"without destination", ask("", schema.Params{"amount": "10.00", "currency": "USD"}), 400, "missing_parameter"},
		{"list", get("/api/payouts", shop, url.Values{"limit": {"5"}}), 200, ""},
		{"read", get("/api/payouts/"+id, shop, nil), 200, ""},
		{"read another merchant's payout", get("/api/payouts/"+id, other, nil), 404, "order_not_found"},
		{"list with a wrong key", get("/api/payouts", account{AppID: shop.AppID, QueryKey: "nope"}, nil), 401, "invalid_key"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if r := validate(t, v, tt.req, tt.status); r.Error != tt.kind {
				t.Fatalf("error kind %q, want %q: %s", r.Error, tt.kind, r.Raw)
			}
		})
	}
	t.Run("two requests spending the same balance", func(t *testing.T) {
		avail := balanceOf(t, jr, shop.AppID).Available
		half := (avail/2 + 100).String() // each above half of what is left, fee included
		var wg sync.WaitGroup
		got := make([]apiResponse, 2)
		for i := range got {
			req := ask("", usd(half))
			wg.Add(1)
			go func() { defer wg.Done(); got[i] = call(t, req) }()
		}
		wg.Wait()
		if ok := (got[0].Status == 200) != (got[1].Status == 200); !ok || got[0].Error+got[1].Error != "insufficient_balance" {
			t.Fatalf("two requests of %s from %s answered %d %s and %d %s", half, avail, got[0].Status, got[0].Error, got[1].Status, got[1].Error)
		}
		if b := balanceOf(t, jr, shop.AppID); b.Available < 0 {
			t.Fatalf("available went negative: %s", b.Available)
		}
	})
}

// unsignedID is p signed with a timestamp and no requestId: a client of
// before the requestId, whose replays would each pay again.
func unsignedID(t *testing.T, acct account, p schema.Params) []byte {
	t.Helper()
	p["appid"], p["timestamp"] = acct.AppID, strconv.FormatInt(time.Now().Unix(), 10)
	p["sign"] = schema.Sign(p, acct.APIKey)
	raw, _ := json.Marshal(p)
	return raw
}

type testDestinations struct{ mine, theirs, cooling string }

// addDestinations saves a usable TRC20 destination of appid and of other,
// and one of appid still cooling off, as the console would.
func addDestinations(t *testing.T, rdb redis.UniversalClient, j *journal.Journal, appid, other string) testDestinations {
	t.Helper()
	ctx := context.Background()
	add := func(cooling time.Duration, owner string) string {
		cfg := payout.Defaults()
		cfg.CoolingOff = cooling
		s, err := payout.New(cfg, rdb, j, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.AddDestination(ctx, payout.Destination{AppID: owner, Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"},
			"user:test", audit.Entry{At: time.Now(), ActorID: "u1", Realm: audit.RealmMerchant, Role: "owner", Action: "payout.test", Source: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	return testDestinations{mine: add(0, appid), theirs: add(0, other), cooling: add(24*time.Hour, appid)}
}

func balanceOf(t *testing.T, j *journal.Journal, appid string) journal.Balance {
	t.Helper()
	b, err := j.Balance(context.Background(), appid, "USD")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
