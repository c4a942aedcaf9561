package operator

import (
	"context"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// opAdmin2 and opAdmin3 are the second admins a maker-checker needs.
var (
	opAdmin2 = access.Actor{ID: "u5", Email: "bo@ops.test", Realm: audit.RealmOperator, Role: access.RoleAdmin, Source: "192.0.2.5"}
	opAdmin3 = access.Actor{ID: "u6", Email: "cy@ops.test", Realm: audit.RealmOperator, Role: access.RoleAdmin, Source: "192.0.2.6"}
)

// moneyEnv is a merchant and the Money use cases on one Redis, the
// approval threshold at 100.00; the journal is checked when the test ends.
func moneyEnv(t *testing.T) (*Money, redisClient, string) {
	t.Helper()
	// On the real Redis when the Makefile started one: the journal's
	// arithmetic and the approval's claim are Redis's Lua, not miniredis's.
	var rdb redisClient
	if os.Getenv("GATEWAY_TEST_REDIS_URL") != "" {
		rdb = testenv.Redis(t)
	} else {
		rdb = miniRedis(t)
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMoney(MoneyConfig{ApprovalAbove: 10000}, rdb, merchant.NewStore(rdb), j, audit.NewLog(rdb), nil)
	if err != nil {
		t.Fatal(err)
	}
	payouts, err := payout.New(payout.Defaults(), rdb, j, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.WithPayouts(payouts)
	a, err := newMerchants(rdb).Create(context.Background(), cliActor, merchant.NewAccount{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return m, rdb, a.AppID
}

func available(t *testing.T, m *Money, appid, cur string) schema.Amount {
	t.Helper()
	b, err := m.j.Balance(context.Background(), appid, cur)
	if err != nil {
		t.Fatal(err)
	}
	return b.Available
}

func actions(t *testing.T, rdb redisClient, prefix string) []string {
	t.Helper()
	var out []string
	for _, r := range auditRows(t, rdb) {
		if strings.HasPrefix(r.Action, prefix) {
			out = append(out, r.Action)
		}
	}
	return out
}

func TestParseAdjustmentRefusesBadInput(t *testing.T) {
	ok := AdjustInput{AppID: "1001", Amount: "-12.50", Currency: "usd", Reason: "chargeback fee"}
	cases := []struct {
		name string
		edit func(*AdjustInput)
	}{
		{"zero", func(in *AdjustInput) { in.Amount = "0" }},
		{"zero with decimals", func(in *AdjustInput) { in.Amount = "-0.00" }},
		{"over-precise", func(in *AdjustInput) { in.Amount = "1.234" }},
		{"non-numeric", func(in *AdjustInput) { in.Amount = "ten" }},
		{"empty amount", func(in *AdjustInput) { in.Amount = "" }},
		{"two signs", func(in *AdjustInput) { in.Amount = "+-5" }},
		{"two signs the other way", func(in *AdjustInput) { in.Amount = "-+5" }},
		{"exponent", func(in *AdjustInput) { in.Amount = "1e3" }},
		{"missing reason", func(in *AdjustInput) { in.Reason = "" }},
		{"blank reason", func(in *AdjustInput) { in.Reason = "   " }},
		{"reason too long", func(in *AdjustInput) { in.Reason = strings.Repeat("x", audit.MaxText+1) }},
		{"reason with a control character", func(in *AdjustInput) { in.Reason = "a\x00b" }},
		{"unknown bucket", func(in *AdjustInput) { in.Bucket = "savings" }},
		{"payout hold is the payouts'", func(in *AdjustInput) { in.Bucket = "payout_hold" }},
		{"unknown currency", func(in *AdjustInput) { in.Currency = "XYZ" }},
		{"no currency", func(in *AdjustInput) { in.Currency = "" }},
		{"no appid", func(in *AdjustInput) { in.AppID = "" }},
	}
	if _, err := ParseAdjustment(ok); err != nil {
		t.Fatalf("the good input is refused: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := ok
			c.edit(&in)
			if _, err := ParseAdjustment(in); !isKind(err, platform.KindInvalidParameter) {
				t.Fatalf("ParseAdjustment(%+v) = %v, want an invalid parameter", in, err)
			}
		})
	}
}

func TestParseAdjustmentReadsSignAndBucket(t *testing.T) {
	cases := []struct {
		name, amount, bucket string
		want                 schema.Amount
		wantBucket           string
	}{
		{"plain credit", "12.5", "", 1250, journal.Available},
		{"plus credit", "+100", "Reserve", 10000, journal.Reserve},
		{"debit", "-0.01", "pending", -1, journal.Pending},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseAdjustment(AdjustInput{AppID: "1001", Amount: c.amount, Currency: "CNY", Bucket: c.bucket, Reason: "r"})
			if err != nil || a.Amount != c.want || a.Bucket != c.wantBucket {
				t.Fatalf("got %s %s, %v; want %s %s", a.Amount, a.Bucket, err, c.want, c.wantBucket)
			}
		})
	}
}

// TestMoneyRoles: support and the auditor read terms, journal and
// adjustments and change none of it; a merchant's user does neither.
func TestMoneyRoles(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	req, err := m.Adjust(ctx, opAdmin, AdjustInput{AppID: appid, Amount: "500", Currency: "USD", Reason: "goodwill"})
	if err != nil || req.State != AdjPending {
		t.Fatalf("request: %+v, %v", req, err)
	}
	writes := map[string]func(a access.Actor) error{
		"set terms": func(a access.Actor) error {
			_, err := m.SetTerms(ctx, a, appid, merchant.Terms{Instant: true})
			return err
		},
		"adjust": func(a access.Actor) error {
			_, err := m.Adjust(ctx, a, AdjustInput{AppID: appid, Amount: "1", Currency: "USD", Reason: "x"})
			return err
		},
		"approve": func(a access.Actor) error { _, err := m.Approve(ctx, a, req.ID); return err },
		"reject":  func(a access.Actor) error { _, err := m.Reject(ctx, a, req.ID, "no"); return err },
	}
	reads := map[string]func(a access.Actor) error{
		"terms":       func(a access.Actor) error { _, err := m.Terms(ctx, a, appid); return err },
		"journal":     func(a access.Actor) error { _, err := m.Journal(ctx, a, appid, "", 10); return err },
		"adjustments": func(a access.Actor) error { _, _, err := m.Adjustments(ctx, a, "", 10); return err },
	}
	before := len(auditRows(t, rdb))
	for _, who := range []struct {
		name     string
		a        access.Actor
		mayRead  bool
		mayWrite bool
	}{{"support", opSupport, true, false}, {"auditor", opAuditor, true, false}, {"merchant owner", mOwner, false, false}} {
		for name, do := range writes {
			if err := do(who.a); !isKind(err, platform.KindForbidden) {
				t.Errorf("%s %s: %v, want forbidden", who.name, name, err)
			}
		}
		for name, do := range reads {
			if err := do(who.a); (err == nil) != who.mayRead {
				t.Errorf("%s %s: %v, may read %v", who.name, name, err, who.mayRead)
			}
		}
	}
	if after := len(auditRows(t, rdb)); after != before {
		t.Errorf("refused changes left %d audit entries", after-before)
	}
	if a, _ := m.st.Get(ctx, appid); a.Terms.Instant {
		t.Error("a refused SetTerms changed the terms")
	}
	if got := available(t, m, appid, "USD"); got != 0 {
		t.Errorf("refused changes moved %s", got)
	}
}

func TestSetTerms(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	if _, err := m.SetTerms(ctx, opAdmin, appid, merchant.Terms{DelayDays: 2, CutoffHour: 30}); !isKind(err, platform.KindInvalidParameter) {
		t.Fatalf("cut-off hour 30: %v, want invalid", err)
	}
	if _, err := m.SetTerms(ctx, opAdmin, "999999", merchant.Terms{Instant: true}); !isKind(err, platform.KindNotFound) {
		t.Fatalf("unknown merchant: %v, want not found", err)
	}
	want := merchant.Terms{DelayDays: 2, CutoffHour: 18, TimeZone: "Asia/Shanghai", ReserveBps: 500, ReserveDays: 90, AllowNegative: true}
	if _, err := m.SetTerms(ctx, opAdmin, appid, want); err != nil {
		t.Fatal(err)
	}
	got, err := m.Terms(ctx, opSupport, appid)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("terms %+v, %v; want %+v", got, err, want)
	}
	var details string
	for _, r := range auditRows(t, rdb) {
		if r.Action == "merchant.set_terms" {
			details = r.Details["terms"]
		}
	}
	if details != "D+2 18:00 Asia/Shanghai, reserve 500 bps for 90 days, may go negative" {
		t.Fatalf("audit entry terms %q", details)
	}
}

// TestAdjustBelowThresholdPosts: a credit and a debit up to the threshold
// post at once, each with its audit entry, and show in the journal.
func TestAdjustBelowThresholdPosts(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	for _, amt := range []string{"100.00", "-40.00"} {
		a, err := m.Adjust(ctx, opAdmin, AdjustInput{AppID: appid, Amount: amt, Currency: "USD", Reason: "correction"})
		if err != nil || a.State != AdjPosted || a.Entry == "" {
			t.Fatalf("adjust %s: %+v, %v", amt, a, err)
		}
	}
	if got := available(t, m, appid, "USD"); got != 6000 {
		t.Fatalf("available %s, want 60.00", got)
	}
	if got := actions(t, rdb, "ledger."); len(got) != 2 {
		t.Fatalf("audit entries %v, want two ledger.adjust", got)
	}
	p, err := m.Journal(ctx, opAuditor, appid, "", 10)
	if err != nil || len(p.Entries) != 2 || p.Entries[0].Memo != "correction" || p.Entries[0].Postings[1].Amount != -4000 {
		t.Fatalf("journal %+v, %v", p, err)
	}
	if _, err := m.Journal(ctx, opAdmin, appid, "0-0 +", 10); !isKind(err, platform.KindInvalidParameter) {
		t.Fatalf("a cursor that is no entry id: %v, want invalid", err)
	}
	_, recent, err := m.Adjustments(ctx, opSupport, appid, 10)
	if err != nil || len(recent) != 2 || recent[0].Amount != -4000 {
		t.Fatalf("recent %+v, %v", recent, err)
	}
}

// TestDebitBeyondBalance: a debit the balance does not cover is refused
// with a clear message and moves nothing, unless the terms allow negative.
func TestDebitBeyondBalance(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	in := AdjustInput{AppID: appid, Amount: "-5.00", Currency: "CNY", Reason: "fee owed"}
	_, err := m.Adjust(ctx, opAdmin, in)
	if !isKind(err, platform.KindInsufficientFunds) || !strings.Contains(err.Error(), "does not cover a debit of 5.00") {
		t.Fatalf("debit beyond balance: %v, want insufficient", err)
	}
	if got := actions(t, rdb, "ledger."); len(got) != 0 {
		t.Fatalf("a refused debit left audit entries %v", got)
	}
	if _, err := m.SetTerms(ctx, opAdmin, appid, merchant.Terms{Instant: true, AllowNegative: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Adjust(ctx, opAdmin, in); err != nil {
		t.Fatalf("allowed negative: %v", err)
	}
	if got := available(t, m, appid, "CNY"); got != -500 {
		t.Fatalf("available %s, want -5.00", got)
	}
}

// request is an adjustment above the threshold, made by maker.
func request(t *testing.T, m *Money, maker access.Actor, appid, amount string) Adjustment {
	t.Helper()
	a, err := m.Adjust(context.Background(), maker, AdjustInput{AppID: appid, Amount: amount, Currency: "USD", Reason: "settlement error"})
	if err != nil || a.State != AdjPending {
		t.Fatalf("request %s: %+v, %v", amount, a, err)
	}
	return a
}

func TestMakerIsNotChecker(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	req := request(t, m, opAdmin, appid, "150.00")
	if got := available(t, m, appid, "USD"); got != 0 {
		t.Fatalf("a request moved %s", got)
	}
	if _, err := m.Approve(ctx, opAdmin, req.ID); !isKind(err, platform.KindForbidden) {
		t.Fatalf("the maker approving: %v, want forbidden", err)
	}
	cliReq := request(t, m, cliActor, appid, "200.00")
	otherCLI := access.Actor{ID: "someone-else", Realm: audit.RealmCLI, Source: "cli"}
	if _, err := m.Approve(ctx, otherCLI, cliReq.ID); !isKind(err, platform.KindForbidden) {
		t.Fatalf("the CLI approving a CLI request: %v, want forbidden", err)
	}
	if got := available(t, m, appid, "USD"); got != 0 {
		t.Fatalf("refused approvals moved %s", got)
	}
	for _, id := range []string{req.ID, cliReq.ID} {
		if a, err := m.Approve(ctx, opAdmin2, id); err != nil || a.State != AdjPosted {
			t.Fatalf("second admin approving %s: %+v, %v", id, a, err)
		}
	}
	if got := available(t, m, appid, "USD"); got != 35000 {
		t.Fatalf("available %s, want 350.00", got)
	}
	want := []string{"ledger.adjust_request", "ledger.adjust_request", "ledger.adjust_approve", "ledger.adjust_approve"}
	if got := actions(t, rdb, "ledger."); strings.Join(sortedStrings(got), ",") != strings.Join(sortedStrings(want), ",") {
		t.Fatalf("audit entries %v, want %v", got, want)
	}
}

// TestApproveTwicePostsOnce: the same admin approving again, and two
// admins approving at once, post the request once.
func TestApproveTwicePostsOnce(t *testing.T) {
	ctx := context.Background()
	m, _, appid := moneyEnv(t)
	req := request(t, m, opAdmin, appid, "150.00")
	if _, err := m.Approve(ctx, opAdmin2, req.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Approve(ctx, opAdmin2, req.ID); !isKind(err, platform.KindConflict) {
		t.Fatalf("approving twice: %v, want conflict", err)
	}
	if _, err := m.Reject(ctx, opAdmin3, req.ID, "too late"); !isKind(err, platform.KindConflict) {
		t.Fatalf("rejecting a posted request: %v, want conflict", err)
	}
	req2 := request(t, m, opAdmin, appid, "250.00")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, who := range []access.Actor{opAdmin2, opAdmin3} {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = m.Approve(ctx, who, req2.ID) }()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two admins at once: %v / %v, want one approval and one conflict", errs[0], errs[1])
	}
	if got := available(t, m, appid, "USD"); got != 40000 {
		t.Fatalf("available %s, want 400.00 (each request once)", got)
	}
	pending, recent, err := m.Adjustments(ctx, opAuditor, "", 10)
	if err != nil || len(pending) != 0 || len(recent) != 2 || recent[0].Checker == "" {
		t.Fatalf("listing: pending %+v recent %+v, %v", pending, recent, err)
	}
}

func TestRejectMovesNothing(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	req := request(t, m, opAdmin, appid, "-150.00")
	if _, err := m.Reject(ctx, opAdmin2, req.ID, " "); !isKind(err, platform.KindInvalidParameter) {
		t.Fatalf("reject without a reason: %v, want invalid", err)
	}
	a, err := m.Reject(ctx, opAdmin2, req.ID, "duplicate of an earlier one")
	if err != nil || a.State != AdjRejected {
		t.Fatalf("reject: %+v, %v", a, err)
	}
	if _, err := m.Approve(ctx, opAdmin3, req.ID); !isKind(err, platform.KindConflict) {
		t.Fatalf("approving a rejected request: %v, want conflict", err)
	}
	if _, err := m.Reject(ctx, opAdmin3, req.ID, "again"); !isKind(err, platform.KindConflict) {
		t.Fatalf("rejecting a rejected request: %v, want conflict", err)
	}
	if _, err := m.Approve(ctx, opAdmin3, appid+"-nope-00"); !isKind(err, platform.KindNotFound) {
		t.Fatalf("approving no request: %v, want not found", err)
	}
	if got := actions(t, rdb, "ledger."); strings.Join(sortedStrings(got), ",") != "ledger.adjust_reject,ledger.adjust_request" {
		t.Fatalf("audit entries %v", got)
	}
	_, recent, _ := m.Adjustments(ctx, opAdmin, appid, 10)
	if len(recent) != 1 || recent[0].Note != "duplicate of an earlier one" {
		t.Fatalf("recent %+v", recent)
	}
}

// TestApprovedDebitRefused: a debit request the balance no longer covers
// ends refused when approved, with its audit entry, and moves nothing.
func TestApprovedDebitRefused(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	req := request(t, m, opAdmin, appid, "-150.00")
	if _, err := m.Approve(ctx, opAdmin2, req.ID); !isKind(err, platform.KindInsufficientFunds) {
		t.Fatalf("approving a debit beyond the balance: %v, want insufficient", err)
	}
	a, err := m.load(ctx, req.ID)
	if err != nil || a.State != AdjRefused {
		t.Fatalf("after: %+v, %v", a, err)
	}
	if got := actions(t, rdb, "ledger."); strings.Join(sortedStrings(got), ",") != "ledger.adjust_refused,ledger.adjust_request" {
		t.Fatalf("audit entries %v", got)
	}
}
