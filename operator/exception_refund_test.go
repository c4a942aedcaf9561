package operator

import (
	"context"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestExceptionRecordRefund: only an administrator records a refund made
// at the provider: support, an auditor and a merchant's owner are refused
// (403) with no mark and no entry written; amount, currency and note are
// required; only a mismatch can carry it. The administrator's record
// closes the exception and the audit entry keeps the amount and note.
func TestExceptionRecordRefund(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	shard, _ := schema.ParseOrderID(q.mismatch)
	for _, tc := range []struct {
		name  string
		actor access.Actor
		id    string
		amt   string
		cur   string
		note  string
		kind  platform.Kind
	}{
		{"support", opSupport, q.mismatch, "90.00", "USD", "refunded", platform.KindForbidden},
		{"auditor", opAuditor, q.mismatch, "90.00", "USD", "refunded", platform.KindForbidden},
		{"merchant owner", mOwner, q.mismatch, "90.00", "USD", "refunded", platform.KindForbidden},
		{"no note", opAdmin, q.mismatch, "90.00", "USD", " ", platform.KindInvalidParameter},
		{"no amount", opAdmin, q.mismatch, "", "USD", "refunded", platform.KindInvalidParameter},
		{"zero amount", opAdmin, q.mismatch, "0", "USD", "refunded", platform.KindInvalidParameter},
		{"unknown currency", opAdmin, q.mismatch, "90.00", "XXX", "refunded", platform.KindInvalidParameter},
		{"not a mismatch", opAdmin, q.dead, "90.00", "USD", "refunded", platform.KindNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := q.x.RecordRefund(ctx, tc.actor, tc.id, tc.amt, tc.cur, tc.note); !isKind(err, tc.kind) {
				t.Fatalf("%v, want %s", err, tc.kind)
			}
			if n := q.rdb.XLen(ctx, schema.AuditKey(shard.Tag())).Val(); n != 0 {
				t.Fatalf("a refusal wrote %d audit entries", n)
			}
			if open, _ := q.x.List(ctx, opAdmin, ExceptionFilter{Kind: schema.ExceptionMismatch}); len(open) != 1 {
				t.Fatalf("a refusal closed the exception: %+v", open)
			}
		})
	}
	e, err := q.x.RecordRefund(ctx, opAdmin, q.mismatch, "90.00", "usd", "wallet_a dashboard refund RF-778")
	if err != nil || e.Handled == nil || e.Handled.Note != "refunded at the provider: 90.00 USD — wallet_a dashboard refund RF-778" {
		t.Fatalf("admin: %+v %v", e, err)
	}
	if open, _ := q.x.List(ctx, opAdmin, ExceptionFilter{Kind: schema.ExceptionMismatch}); len(open) != 0 {
		t.Fatalf("still open: %+v", open)
	}
	rows, err := audit.Read(ctx, q.rdb, schema.AuditKey(shard.Tag()), 10)
	if err != nil || len(rows) != 1 || rows[0].Action != "exception.refund_recorded" || rows[0].Target != "order:"+q.mismatch ||
		rows[0].Details["amount"] != "90.00" || rows[0].Details["currency"] != "USD" || rows[0].Role != "admin" || rows[0].AppID != "1001" {
		t.Fatalf("audit: %+v %v", rows, err)
	}
}
