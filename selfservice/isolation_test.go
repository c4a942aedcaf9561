package selfservice

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
)

// TestAnotherMerchantsDataNeverShows: a session of one merchant never
// sees, resends or manages another merchant's deliveries, ledger or users;
// asking by id is answered like a missing one and changes nothing.
func TestAnotherMerchantsDataNeverShows(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	mine := e.deadDelivery(e.shop.AppID, time.Now().Add(-time.Minute), "HTTP 500")
	theirs := e.deadDelivery(e.other.AppID, time.Now(), "HTTP 502")
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fixture.PostLedgerMix(t, j, e.other.AppID, time.Now().UTC().Truncate(24*time.Hour))
	journaltest.Check(t, e.rdb)
	theirUser := e.user(e.other.AppID, "owner@other.test", access.RoleOwner)
	w := who(e.shop.AppID, access.RoleOwner)

	t.Run("deliveries", func(t *testing.T) {
		rows, err := e.svc.Webhooks.Deliveries(ctx, w, dispatcher.ListFilter{})
		if err != nil || len(rows) != 1 || rows[0].DeliveryID != mine {
			t.Fatalf("rows %+v, %v: want only %s", rows, err, mine)
		}
	})
	t.Run("resend", func(t *testing.T) {
		before := e.fingerprint()
		if err := e.svc.Webhooks.Resend(ctx, w, theirs, ""); kindOf(err) != platform.KindNotFound {
			t.Fatalf("resend of their delivery: %v, want not found", err)
		}
		if e.fingerprint() != before {
			t.Fatal("a refused resend changed something")
		}
	})
	t.Run("resend dead", func(t *testing.T) {
		res, err := e.svc.Webhooks.ResendDead(ctx, w, time.Now().Add(-time.Hour), time.Now().Add(time.Minute))
		if err != nil || res.Queued != 1 {
			t.Fatalf("%+v, %v: want only mine queued", res, err)
		}
		if st := e.deliveryState(theirs); st != "dead/" {
			t.Fatalf("their delivery is %s", st)
		}
	})
	t.Run("balances and next settlement", func(t *testing.T) {
		b, err := e.svc.Balance.Overview(ctx, w)
		if err != nil || len(b.Balances) != 0 || !b.Next.At.IsZero() || len(b.Next.Amounts) != 0 {
			t.Fatalf("overview %+v, %v", b, err)
		}
	})
	t.Run("users", func(t *testing.T) {
		team, err := e.svc.Team.Roster(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range team.Users {
			if u.AppID != e.shop.AppID {
				t.Fatalf("their user %s listed", u.Email)
			}
		}
		before := e.fingerprint()
		for name, do := range map[string]func() error{
			"set role": func() error { return e.svc.Team.SetRole(ctx, w, theirUser.ID, access.RoleViewer) },
			"remove":   func() error { return e.svc.Team.SetDisabled(ctx, w, theirUser.ID, true) },
			"reissue":  func() error { _, err := e.svc.Team.Reissue(ctx, w, theirUser.ID); return err },
		} {
			if err := do(); kindOf(err) != platform.KindNotFound {
				t.Fatalf("%s of their user: %v, want not found", name, err)
			}
		}
		if e.fingerprint() != before {
			t.Fatal("a refused user change changed something")
		}
	})
}
