package admin

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestKeyAges: the account's rotation stamp first, then the newest
// rotation in the history, then the account's creation.
func TestKeyAges(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	created := now.Add(-30 * 24 * time.Hour)
	hist := []audit.Row{ // newest first, as the search answers
		{Entry: audit.Entry{Action: "merchant.rotate_query_key", At: now.Add(-5 * time.Hour)}},
		{Entry: audit.Entry{Action: "merchant.rotate_query_key", At: now.Add(-9 * 24 * time.Hour)}},
		{Entry: audit.Entry{Action: "merchant.rotate_key", At: now.Add(-20 * 24 * time.Hour)}},
	}
	a := &merchant.Account{CreatedAt: created, KeyRotatedAt: now.Add(-10 * time.Minute)}
	got := keyAges(a, hist, now)
	want := []keyAge{
		{Name: "key_api", Since: now.Add(-10 * time.Minute), AgeID: "key_age_new"},
		{Name: "key_query", Since: now.Add(-5 * time.Hour), AgeID: "key_age_hours", N: 5},
		{Name: "key_webhook", Since: created, AgeID: "key_age_days", N: 30},
	}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: %+v, want %+v", want[i].Name, got[i], want[i])
		}
	}
}

// TestMerchantPageShowsKeyAges: a rotation made through the store shows
// on the merchant page as that key's age.
func TestMerchantPageShowsKeyAges(t *testing.T) {
	e := newEnv(t)
	if _, err := merchant.NewStore(e.rdb).RotateQueryKeyGrace(context.Background(), e.appid, 0); err != nil {
		t.Fatal(err)
	}
	s := e.session(t, access.RealmOperator, "al@ops.test")
	res := e.do(t, get("/admin/merchants/"+e.appid, s))
	body, _ := io.ReadAll(res.Body)
	for _, want := range []string{`data-key-age="key_api"`, `data-key-age="key_query">issued under an hour ago`, `data-key-age="key_webhook"`,
		`data-view-console`} {
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Fatalf("%d: no %s\n%s", res.StatusCode, want, body)
		}
	}
}

// TestKeyAgeFirstWebhookSecret: a first webhook secret given at an old
// account's first webhook (merchant.EnsureWebhookSecret) is as old as its
// stamp, not as the account, and no rotation in the history is needed.
func TestKeyAgeFirstWebhookSecret(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	store := merchant.NewStore(e.rdb)
	e.rdb.HDel(ctx, schema.MerchantKey(e.appid), "webhookSecret") // as before secrets existed
	a, err := store.EnsureWebhookSecret(ctx, e.appid)
	if err != nil {
		t.Fatal(err)
	}
	a.CreatedAt = a.CreatedAt.Add(-90 * 24 * time.Hour) // the account is old; its secret is not
	got := keyAges(a, nil, time.Now().Add(3*time.Hour))
	if w := got[2]; w.Name != "key_webhook" || w.AgeID != "key_age_hours" || w.N != 3 {
		t.Fatalf("the first webhook secret's age: %+v", w)
	}
}
