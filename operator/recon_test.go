package operator

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/recon"
)

var reconDay = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

// onePayment is our payment P1 on wallet_a.default: 10.00 CNY, cost 0.60.
type onePayment struct{}

func (onePayment) ReconPayments(context.Context, string, time.Time) ([]recon.Payment, error) {
	return []recon.Payment{{AppID: "1001", OrderID: "P1", ProviderRef: "WA1", Amount: 1000, Fee: 60, Currency: "CNY"}}, nil
}

type auditLog struct{ entries []audit.Entry }

func (a *auditLog) Append(_ context.Context, e audit.Entry) (string, error) {
	if err := e.Validate(); err != nil {
		return "", err
	}
	a.entries = append(a.entries, e)
	return "1", nil
}

type reconEnv struct {
	r   *Reconciliation
	j   *journal.Journal
	log *auditLog
}

// newReconEnv: the ledger owes 9.40 CNY from wallet_a.default for P1.
func newReconEnv(t *testing.T) *reconEnv {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Post(context.Background(), journal.Tx{Key: "payment:P1", Kind: journal.KindPayment, AppID: "1001", Ref: "P1",
		At: reconDay.Add(time.Hour), Postings: []journal.Posting{
			{Account: journal.Receivable("wallet_a.default"), Currency: "CNY", Amount: -940},
			{Account: journal.Cost("wallet_a.default"), Currency: "CNY", Amount: -60},
			{Account: journal.Merchant("1001", journal.Pending), Currency: "CNY", Amount: 1000}}}); err != nil {
		t.Fatal(err)
	}
	e := &reconEnv{j: j, log: &auditLog{}}
	im := recon.NewImporter(onePayment{}, j, recon.NewRedisQueue(rdb), nil)
	cfg := ReconDefaults()
	cfg.MaxFile = 4 << 10
	if e.r, err = NewReconciliation(cfg, im, j, rdb, twoChannels{}, e.log); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return e
}

// walletAStatement is wallet_a's statement of P1 (10.00, fee 0.60) plus rows.
func walletAStatement(t *testing.T, extra ...statement.Row) string {
	t.Helper()
	var b bytes.Buffer
	rows := append([]statement.Row{{Ref: "WA1", Order: "P1", Currency: "CNY", Account: "2021000000000000", Amount: 1000, Fee: 60,
		At: reconDay.Add(time.Hour)}}, extra...)
	if err := statement.Write(&b, walleta.StatementShape, func(y func(statement.Row) bool) {
		for _, r := range rows {
			if !y(r) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	reconAdmin   = access.Actor{ID: "o1", Email: "ann@ops.test", Realm: audit.RealmOperator, Role: access.RoleAdmin, Source: "127.0.0.1"}
	reconSupport = access.Actor{ID: "o2", Email: "sam@ops.test", Realm: audit.RealmOperator, Role: access.RoleSupport, Source: "127.0.0.1"}
	reconAuditor = access.Actor{ID: "o3", Email: "al@ops.test", Realm: audit.RealmOperator, Role: access.RoleAuditor, Source: "127.0.0.1"}
)

// TestReconImport: the admin's import clears the receivable, says so on
// the receivables and leaves an audit entry naming the file by its sha256
// (never its content); the same file again changes nothing and says so.
func TestReconImport(t *testing.T) {
	e := newReconEnv(t)
	ctx := context.Background()
	file := walletAStatement(t)
	st := Statement{Channel: "wallet_a.default", Day: "2026-11-27", File: strings.NewReader(file)}
	rep, err := e.r.Import(ctx, reconAdmin, st)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Matched != 1 || rep.Posted != 1 || rep.Again || len(rep.Cleared) != 1 || rep.Cleared[0].Amount != 940 || len(rep.Findings) != 0 {
		t.Fatalf("report %+v", rep)
	}
	rows, err := e.r.Receivables(ctx, reconAuditor)
	if err != nil || len(rows) != 1 || rows[0].Owed != 0 || rows[0].Cleared != 940 || rows[0].Last == nil || rows[0].Last.Day != "2026-11-27" {
		t.Fatalf("receivables %+v %v", rows, err)
	}
	if len(e.log.entries) != 1 {
		t.Fatalf("%d audit entries", len(e.log.entries))
	}
	en := e.log.entries[0]
	if en.Action != ActionReconImport || en.ActorEmail != "ann@ops.test" || en.Details["sha256"] != rep.SHA256 || len(rep.SHA256) != 64 ||
		!strings.Contains(en.Details["counts"], "matched 1,") || en.Details["result"] != "imported" || en.Details["cleared"] != "9.40 CNY" || en.Details["channel"] != "wallet_a.default" || en.Details["day"] != "2026-11-27" {
		t.Fatalf("audit entry %+v", en)
	}
	for k, v := range en.Details {
		if strings.Contains(v, "WA1") || strings.Contains(v, "2021000000000000") {
			t.Fatalf("the audit entry carries the file's content: %s=%q", k, v)
		}
	}
	st.File = strings.NewReader(file)
	again, err := e.r.Import(ctx, reconAdmin, st)
	if err != nil || !again.Again || again.Posted != 0 || len(again.Cleared) != 0 {
		t.Fatalf("again: %+v %v", again, err)
	}
	if rows, _ := e.r.Receivables(ctx, reconAdmin); rows[0].Owed != 0 || rows[0].Cleared != 0 || !rows[0].Last.Again {
		t.Fatalf("receivables after the same file again %+v", rows)
	}
}

// TestReconImportRefusals: support and the auditor may not import (403),
// and a bad channel, day or file is a 400 naming what is wrong; none posts,
// records or audits anything.
func TestReconImportRefusals(t *testing.T) {
	good := "wallet_a.default"
	tests := []struct {
		name   string
		actor  access.Actor
		st     Statement
		status int
		says   string
	}{
		{"support", reconSupport, Statement{Channel: good, Day: "2026-11-27"}, 403, "may not"},
		{"auditor", reconAuditor, Statement{Channel: good, Day: "2026-11-27"}, 403, "may not"},
		{"a channel not configured here", reconAdmin, Statement{Channel: "wallet_a.other", Day: "2026-11-27"}, 400, "not configured"},
		{"a method without statements", reconAdmin, Statement{Channel: "usdt_direct.default", Day: "2026-11-27"}, 400, "no provider statement"},
		{"a bad day", reconAdmin, Statement{Channel: good, Day: "27/11/2026"}, 400, "date such as"},
		{"a line of another day", reconAdmin, Statement{Channel: good, Day: "2026-11-26"}, 400, "outside the day"},
		{"a row of another account", reconAdmin, Statement{Channel: good, Day: "2026-11-27",
			File: strings.NewReader(walletAStatement(t, statement.Row{Ref: "WA2", Order: "P2", Currency: "CNY", Account: "2099", Amount: 5, At: reconDay}))}, 400, "row 3"},
		{"a file over the bound", reconAdmin, Statement{Channel: good, Day: "2026-11-27", File: strings.NewReader(strings.Repeat("x", 5<<10))}, 400, "over the 4 KiB bound"},
		{"no file", reconAdmin, Statement{Channel: good, Day: "2026-11-27", File: strings.NewReader("")}, 400, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newReconEnv(t)
			if tt.st.File == nil {
				tt.st.File = strings.NewReader(walletAStatement(t))
			}
			_, err := e.r.Import(context.Background(), tt.actor, tt.st)
			var pe *platform.Error
			if !errors.As(err, &pe) || platform.Status(pe.Kind) != tt.status || !strings.Contains(pe.Msg, tt.says) {
				t.Fatalf("%v, want %d saying %q", err, tt.status, tt.says)
			}
			rows, _ := e.r.Receivables(context.Background(), reconAdmin)
			if len(rows) != 1 || rows[0].Owed != 940 || rows[0].Last != nil || len(e.log.entries) != 0 {
				t.Fatalf("a refused import changed something: %+v, %d entries", rows, len(e.log.entries))
			}
		})
	}
}

// TestReconReportShowsTheFirstFindings: a report carries the first Shown
// findings with their evidence and counts the rest, which the exceptions
// queue keeps all of.
func TestReconReportShowsTheFirstFindings(t *testing.T) {
	e := newReconEnv(t)
	e.r.cfg.Shown = 1
	unknown := func(ref string) statement.Row {
		return statement.Row{Ref: ref, Order: "P-" + ref, Currency: "CNY", Account: "2021000000000000", Amount: 500, At: reconDay.Add(2 * time.Hour)}
	}
	rep, err := e.r.Import(context.Background(), reconAdmin, Statement{Channel: "wallet_a.default", Day: "2026-11-27",
		File: strings.NewReader(walletAStatement(t, unknown("WA8"), unknown("WA9")))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.More != 1 || rep.Counts[0].Kind != "missing_with_us" || rep.Counts[0].N != 2 ||
		!strings.Contains(rep.Findings[0].Evidence, "statement row 3") {
		t.Fatalf("report %+v", rep)
	}
}
