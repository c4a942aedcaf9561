package dispatcher

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// resendCase is one delivery state and what a resend by whom leaves.
type resendCase struct {
	name    string
	by      func(e *deskEnv) *access.Actor // nil: the signed API of e.acct
	target  func(mine, theirs string) string
	kind    platform.Kind // "": queued
	entries int64         // audit entries on the shard after the call
}

func merchantActor(appid string, role access.Role) *access.Actor {
	return &access.Actor{ID: "u1", Email: "dev@shop.test", Realm: audit.RealmMerchant, Role: role, AppID: appid, Source: "192.0.2.1"}
}

// TestResendChecksAndAuditsInItsScript: the one resend refuses another
// merchant's delivery, a role without the permission and an entry the log
// cannot keep with nothing changed and no entry; an allowed resend queues
// the attempt and appends exactly one entry, on the delivery's shard, in
// the same script.
func TestResendChecksAndAuditsInItsScript(t *testing.T) {
	mineOf := func(mine, _ string) string { return mine }
	theirsOf := func(_, theirs string) string { return theirs }
	dev := func(e *deskEnv) *access.Actor { return merchantActor(e.acct.AppID, access.RoleDeveloper) }
	for _, tc := range []resendCase{
		{"another merchant's delivery, by a console user", dev, theirsOf, platform.KindNotFound, 0},
		{"another merchant's delivery, by the signed API", nil, theirsOf, platform.KindNotFound, 0},
		{"a viewer", func(e *deskEnv) *access.Actor { return merchantActor(e.acct.AppID, access.RoleViewer) }, mineOf, platform.KindForbidden, 0},
		{"an operator auditor", func(*deskEnv) *access.Actor {
			return &access.Actor{ID: "o1", Email: "aud@op.test", Realm: audit.RealmOperator, Role: access.RoleAuditor, Source: "192.0.2.9"}
		}, mineOf, platform.KindForbidden, 0},
		{"an entry the log cannot keep", func(e *deskEnv) *access.Actor {
			a := merchantActor(e.acct.AppID, access.RoleDeveloper)
			a.Source = strings.Repeat("1", 300)
			return a
		}, mineOf, platform.KindInvalidParameter, 0},
		{"its own, by a console user", dev, mineOf, "", 1},
		{"any merchant's, by support", func(*deskEnv) *access.Actor {
			return &access.Actor{ID: "o2", Email: "sup@op.test", Realm: audit.RealmOperator, Role: access.RoleSupport, Source: "192.0.2.9"}
		}, theirsOf, "", 1},
		{"any merchant's, by the CLI", func(*deskEnv) *access.Actor { a := access.CLI(); return &a }, theirsOf, "", 1},
		{"its own, by the signed API (not audited)", nil, mineOf, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newDeskEnv(t)
			ctx := context.Background()
			mine := e.scheduleFor(e.acct.AppID, 4, time.Now())
			theirs := e.scheduleFor(e.other.AppID, 4, time.Now())
			e.settle(map[string]outcome{mine: deskFail("HTTP 500"), theirs: deskFail("HTTP 500")})
			id := tc.target(mine, theirs)
			ask := ResendAsk{PaymentID: id, AppID: e.acct.AppID}
			if tc.by != nil {
				ask.By = tc.by(e)
			}
			err := NewWebhooks(e.rdb).Resend(ctx, ask)
			if platform.KindOf(err) != tc.kind && !(tc.kind == "" && err == nil) {
				t.Fatalf("resend: %v, want kind %q", err, tc.kind)
			}
			man := e.rdb.HGet(ctx, schema.WebhookKey(4, id), "man").Val()
			if (tc.kind == "") != (man == StateDead) {
				t.Fatalf("after %v the delivery's resend is %q", err, man)
			}
			rows, rerr := audit.Read(ctx, e.rdb, schema.AuditKey(schema.Shard(4).Tag()), 10)
			if rerr != nil || int64(len(rows)) != tc.entries {
				t.Fatalf("%d audit entries (%v), want %d", len(rows), rerr, tc.entries)
			}
			if tc.entries == 1 {
				owner := e.acct.AppID
				if id == theirs {
					owner = e.other.AppID
				}
				if r := rows[0]; r.Action != ActionResend || r.Target != "order:"+id || r.AppID != owner || r.Realm != ask.By.Realm {
					t.Fatalf("entry %+v", r)
				}
			}
		})
	}
}

// TestResendRetriedAuditsOnce: a resend asked again before its attempt
// (a double click, a retried call) queues nothing more and appends no
// second entry; one while an attempt is in flight is 409 with no entry.
func TestResendRetriedAuditsOnce(t *testing.T) {
	e := newDeskEnv(t)
	ctx := context.Background()
	mine := e.scheduleFor(e.acct.AppID, 4, time.Now())
	e.settle(map[string]outcome{mine: deskFail("HTTP 500")})
	w := NewWebhooks(e.rdb)
	ask := ResendAsk{PaymentID: mine, By: merchantActor(e.acct.AppID, access.RoleOwner)}
	for i := range 3 {
		if err := w.Resend(ctx, ask); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	stream := schema.AuditKey(schema.Shard(4).Tag())
	if n := e.rdb.XLen(ctx, stream).Val(); n != 1 {
		t.Fatalf("%d entries after three calls of one resend, want 1", n)
	}
	// The attempt is claimed (in flight): a resend now is refused.
	e.rdb.HSet(ctx, schema.WebhookKey(4, mine), "lease", "t", "due", time.Now().Add(time.Minute).UnixMilli())
	e.rdb.HDel(ctx, schema.WebhookKey(4, mine), "man")
	if err := w.Resend(ctx, ask); !errors.Is(err, ErrInFlight) || platform.KindOf(err) != platform.KindConflict {
		t.Fatalf("in flight: %v", err)
	}
	if n := e.rdb.XLen(ctx, stream).Val(); n != 1 {
		t.Fatalf("%d entries after a refused resend, want 1", n)
	}
}
