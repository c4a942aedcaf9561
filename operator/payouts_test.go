package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
)

type payoutsEnv struct {
	p   *Payouts
	s   *payout.Store
	j   *journal.Journal
	now time.Time
}

func newPayoutsEnv(t *testing.T) *payoutsEnv {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &payoutsEnv{j: j, now: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	cfg := payout.Defaults()
	cfg.Now = func() time.Time { return e.now }
	if e.s, err = payout.New(cfg, rdb, j, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.p = NewPayouts(e.s, cfg.Now)
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return e
}

// asked is a requested payout of 60.00 (fee 1.00) of merchant 1001 out of
// 100.00, to a bank account or a TRC20 address.
func (e *payoutsEnv) asked(t *testing.T, bank bool) payout.Payout {
	t.Helper()
	ctx := context.Background()
	d := payout.Destination{AppID: "1001", Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}
	if bank {
		d = payout.Destination{AppID: "1001", Kind: payout.Bank, Holder: "Ana", Bank: "Banco Uno", Account: "ES9121000418450200051332"}
	}
	got, err := e.s.AddDestination(ctx, d, "merchant:u1", audit.Entry{At: e.now, ActorID: "u1", Realm: audit.RealmMerchant, Role: "owner", Action: "t", Source: "t"})
	if err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(25 * time.Hour)
	if _, _, err := e.j.TopUp(ctx, "", "1001", "USD", 10000, nil); err != nil {
		t.Fatal(err)
	}
	p, _, err := e.s.Request(ctx, payout.Ask{AppID: "1001", Destination: got.ID, Currency: "USD", Amount: 6000, By: "user:u1",
		Limits: payout.Limits{Fee: 100}}, audit.Entry{At: e.now, ActorID: "u1", Realm: audit.RealmMerchant, Role: "owner", Action: "t", Source: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func op(role access.Role, id string) access.Actor {
	return access.Actor{ID: id, Email: id + "@ops.test", Realm: audit.RealmOperator, Role: role, Source: "127.0.0.1"}
}

// TestPayoutDecisionsByRole: support and auditor read the queues and may
// decide nothing; an admin approves.
func TestPayoutDecisionsByRole(t *testing.T) {
	ctx := context.Background()
	e := newPayoutsEnv(t)
	p := e.asked(t, true)
	for _, r := range []access.Role{access.RoleSupport, access.RoleAuditor} {
		q, err := e.p.Queues(ctx, op(r, "x"))
		if err != nil || len(q.Review) != 1 {
			t.Fatalf("%s reads %+v, %v", r, q, err)
		}
		_, aerr := e.p.Approve(ctx, op(r, "x"), p.ID)
		_, rerr := e.p.Reject(ctx, op(r, "x"), p.ID, "no")
		_, perr := e.p.Paid(ctx, op(r, "x"), p.ID, "REF1")
		for _, err := range []error{aerr, rerr, perr} {
			if platform.KindOf(err) != platform.KindForbidden {
				t.Fatalf("%s decided: %v", r, err)
			}
		}
	}
	if _, err := e.p.Queues(ctx, access.Actor{Realm: audit.RealmMerchant, Role: access.RoleOwner}); platform.KindOf(err) != platform.KindForbidden {
		t.Fatalf("a merchant's owner read the operators' queues: %v", err)
	}
	got, err := e.p.Approve(ctx, op(access.RoleAdmin, "ann"), p.ID)
	if err != nil || got.State != payout.Approved || got.Reviewer != "op:ann@ops.test" {
		t.Fatalf("admin approve: %+v, %v", got, err)
	}
}

// TestPayoutMakerChecker: the admin who changed the merchant's payout
// details is refused; another admin approves.
func TestPayoutMakerChecker(t *testing.T) {
	ctx := context.Background()
	e := newPayoutsEnv(t)
	p := e.asked(t, true)
	ann, bob := op(access.RoleAdmin, "ann"), op(access.RoleAdmin, "bob")
	if err := e.s.NoteChange(ctx, "1001", ChangerKey(ann)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Approve(ctx, ann, p.ID); platform.KindOf(err) != platform.KindForbidden {
		t.Fatalf("the maker approved: %v", err)
	}
	if got, err := e.p.Approve(ctx, bob, p.ID); err != nil || got.State != payout.Approved {
		t.Fatalf("another admin: %+v, %v", got, err)
	}
}

// TestPayoutRejectAndBankRef: a rejection needs its reason and gives the
// money back; a bank payout ends paid with its reference; a USDT one is
// never ended by hand.
func TestPayoutRejectAndBankRef(t *testing.T) {
	ctx := context.Background()
	admin := op(access.RoleAdmin, "ann")
	t.Run("reject", func(t *testing.T) {
		e := newPayoutsEnv(t)
		p := e.asked(t, true)
		if _, err := e.p.Reject(ctx, admin, p.ID, "  "); platform.KindOf(err) != platform.KindMissingParameter {
			t.Fatalf("a rejection without a reason: %v", err)
		}
		got, err := e.p.Reject(ctx, admin, p.ID, "account closed")
		b, _ := e.j.Balance(ctx, "1001", "USD")
		if err != nil || got.State != payout.Rejected || got.Reason != "account closed" || b.Available != 10000 {
			t.Fatalf("reject: %+v, %v, balance %+v", got, err, b)
		}
	})
	t.Run("bank reference", func(t *testing.T) {
		e := newPayoutsEnv(t)
		p := e.asked(t, true)
		if _, err := e.p.Paid(ctx, admin, p.ID, "REF1"); platform.KindOf(err) != platform.KindConflict {
			t.Fatalf("a reference before approval: %v", err)
		}
		if _, err := e.p.Approve(ctx, admin, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.p.Paid(ctx, admin, p.ID, "bad\x01ref"); platform.KindOf(err) != platform.KindInvalidParameter {
			t.Fatalf("a control character in a reference: %v", err)
		}
		got, err := e.p.Paid(ctx, admin, p.ID, "SEPA-2026-11-28-001")
		if err != nil || got.State != payout.Paid || got.BankRef != "SEPA-2026-11-28-001" {
			t.Fatalf("paid: %+v, %v", got, err)
		}
	})
	t.Run("usdt by hand", func(t *testing.T) {
		e := newPayoutsEnv(t)
		p := e.asked(t, false)
		if _, err := e.p.Approve(ctx, admin, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.p.Paid(ctx, admin, p.ID, "REF1"); platform.KindOf(err) != platform.KindConflict {
			t.Fatalf("a USDT payout ended by hand: %v", err)
		}
	})
}

// TestImportRefs: a references file with a BOM, CRLF and a header records
// each row once; the same file again records nothing more; a malformed
// file records nothing and names its rows.
func TestImportRefs(t *testing.T) {
	ctx := context.Background()
	admin := op(access.RoleAdmin, "ann")
	e := newPayoutsEnv(t)
	p := e.asked(t, true)
	if _, err := e.p.Approve(ctx, admin, p.ID); err != nil {
		t.Fatal(err)
	}
	bad := "payout_id,reference\r\n" + p.ID + ",R1\r\nonly-one-field\r\n" + p.ID + ",R2\r\n,R3\r\n"
	rep, err := e.p.ImportRefs(ctx, admin, strings.NewReader(bad))
	if platform.KindOf(err) != platform.KindInvalidParameter || rep.Invalid != 3 || rep.Rows[1].Row != 3 || rep.Rows[2].Row != 4 || rep.Rows[3].Row != 5 {
		t.Fatalf("malformed file: %+v, %v", rep, err)
	}
	if got, _ := e.s.Get(ctx, "", p.ID); got.State != payout.Approved {
		t.Fatalf("a malformed file recorded %s", got.State)
	}
	good := "\ufeffpayout_id,reference\r\n" + p.ID + ",SEPA-1\r\n1001-nosuch-00,SEPA-2\r\n"
	rep, err = e.p.ImportRefs(ctx, admin, strings.NewReader(good))
	if err != nil || rep.Paid != 1 || rep.Refused != 1 || rep.Rows[1].Row != 3 || rep.Rows[1].Error != "no such payout" {
		t.Fatalf("good file: %+v, %v", rep, err)
	}
	rep, err = e.p.ImportRefs(ctx, admin, strings.NewReader(good))
	if err != nil || rep.Paid != 0 || rep.Already != 1 {
		t.Fatalf("the same file again: %+v, %v", rep, err)
	}
	big := strings.Repeat("\n", MaxRefsFile) + p.ID + ",SEPA-1\n"
	if _, err := e.p.ImportRefs(ctx, admin, strings.NewReader(big)); platform.KindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("a file over the bound: %v", err)
	}
	if _, err := e.p.ImportRefs(ctx, op(access.RoleSupport, "s"), strings.NewReader(good)); platform.KindOf(err) != platform.KindForbidden {
		t.Fatalf("support imported: %v", err)
	}
}
