package bdcard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	bdcard "github.com/paygate/gateway/provider/bdcard"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

var families = []string{bdcard.FamilyCard, bdcard.FamilyPSPA}

// Initialise → the simulated page → Pay or Fail → the IPN reaches our
// receiver, which verifies it (signature, then validation) → the browser is
// sent back to our success or fail page.
func TestEndToEnd(t *testing.T) {
	cases := []struct {
		name    string
		outcome string
		want    provider.Outcome
		back    string
	}{
		{"pay", "pay", provider.OutcomePaid, "/success"},
		{"fail", "fail", provider.OutcomeFailed, "/fail"},
	}
	for _, fam := range families {
		for _, c := range cases {
			t.Run(fam+"/"+c.name, func(t *testing.T) {
				h := newHarness(t, fam)
				in := h.initialise(t, "P2026A"+c.name)
				res, err := http.Get(in.ProviderURL)
				if err != nil {
					t.Fatal(err)
				}
				page, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "12150.00") {
					t.Fatalf("page: HTTP %d %s", res.StatusCode, page)
				}
				back := providertest.PostForm(t, nil, in.ProviderURL, "outcome="+c.outcome)
				if back.StatusCode != http.StatusSeeOther || !strings.HasSuffix(back.Header.Get("Location"), c.back) {
					t.Fatalf("after %s: HTTP %d to %q", c.outcome, back.StatusCode, back.Header.Get("Location"))
				}
				r := h.got.Next(t)
				if r.err != nil || r.n.Outcome != c.want || r.n.OrderID != "P2026A"+c.name {
					t.Fatalf("verified %+v, %v", r.n, r.err)
				}
				if c.want == provider.OutcomePaid {
					checkPaid(t, r.n)
				}
			})
		}
	}
}

func checkPaid(t *testing.T, n provider.Notification) {
	t.Helper()
	if n.Paid != (provider.Money{Amount: 1215000, Currency: "BDT"}) {
		t.Fatalf("paid %+v, want 12150.00 BDT", n.Paid)
	}
	f := n.Fields
	if f["currency_type"] != "USD" || f["currency_amount"] != "100.00" || f["currency_rate"] != "121.5000" {
		t.Fatalf("original amount not carried: %v", f)
	}
	if _, ok := f[bdcard.FieldVerifySign]; ok || n.Ref == "" {
		t.Fatalf("fields keep the signature or no ref: %+v", n)
	}
}

// Settle is the sandbox's pay button: the same IPN without a browser;
// settling again sends the same IPN, which verifies the same.
func TestSettle(t *testing.T) {
	h := newHarness(t, bdcard.FamilyPSPA)
	in := h.initialise(t, "P2026settle")
	if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	first := h.got.Next(t)
	if first.err != nil || first.n.Outcome != provider.OutcomePaid {
		t.Fatalf("settled: %+v, %v", first.n, first.err)
	}
	checkPaid(t, first.n)
	if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	again := h.got.Next(t)
	if again.err != nil || !reflect.DeepEqual(again.n, first.n) {
		t.Fatalf("second IPN verified differently:\n%+v\n%+v (%v)", again.n, first.n, again.err)
	}
	if err := h.sim.Settle(context.Background(), in.Ref, false); err == nil {
		t.Fatal("a paid session failed afterwards")
	}
	if err := h.sim.Settle(context.Background(), "no-such-session", true); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

// Query by our transaction id before, after and without a payment.
func TestQuery(t *testing.T) {
	h := newHarness(t, bdcard.FamilyCard)
	ctx := context.Background()
	paid, failed := h.initialise(t, "P2026qpaid"), h.initialise(t, "P2026qfail")
	cases := []struct {
		name    string
		settle  func()
		orderID string
		want    provider.Outcome
		wantErr error
	}{
		{"before paying", func() {}, "P2026qpaid", provider.OutcomePending, nil},
		{"paid", func() { _ = h.sim.Settle(ctx, paid.Ref, true); h.got.Next(t) }, "P2026qpaid", provider.OutcomePaid, nil},
		{"failed", func() { _ = h.sim.Settle(ctx, failed.Ref, false); h.got.Next(t) }, "P2026qfail", provider.OutcomeFailed, nil},
		{"unknown order", func() {}, "P2026nothing", 0, provider.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.settle()
			n, err := h.adapter.Query(ctx, c.orderID, "")
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil || n.Outcome != c.want || n.OrderID != c.orderID {
				t.Fatalf("query: %+v, %v", n, err)
			}
			if c.want == provider.OutcomePaid && n.Paid != (provider.Money{Amount: 1215000, Currency: "BDT"}) {
				t.Fatalf("paid %+v", n.Paid)
			}
		})
	}
}
