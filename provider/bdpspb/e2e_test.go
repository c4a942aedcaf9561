package bdpspb_test

import (
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

var (
	formAction  = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// submitReturn reads the simulator's return page and submits its form, as
// the tester does.
func submitReturn(t *testing.T, page string) (string, url.Values) {
	t.Helper()
	m := formAction.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no return form in %s", page)
	}
	form := url.Values{}
	for _, in := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Set(in[1], html.UnescapeString(in[2]))
	}
	return html.UnescapeString(m[1]), form
}

// Initialise → the simulated page → Pay, Fail or cancel → the return page's
// form posted to our receiver → Verify searches at the provider → the payer
// is redirected onwards.
func TestEndToEnd(t *testing.T) {
	cases := []struct {
		outcome string
		path    string
		want    provider.Outcome
	}{
		{"pay", "return/success", provider.OutcomePaid},
		{"fail", "return/fail", provider.OutcomeFailed},
		{"cancel", "return/cancel", provider.OutcomeCancelled},
	}
	for _, c := range cases {
		t.Run(c.outcome, func(t *testing.T) {
			h := newHarness(t)
			in := h.initialise(t, "P2026B"+c.outcome)
			res, err := http.Get(in.ProviderURL)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "12150.00") {
				t.Fatalf("page: HTTP %d %s", res.StatusCode, page)
			}
			res, err = providertest.NoRedirects(nil).PostForm(in.ProviderURL, url.Values{"outcome": {c.outcome}})
			if err != nil {
				t.Fatal(err)
			}
			page, _ = io.ReadAll(res.Body)
			res.Body.Close()
			action, form := submitReturn(t, string(page))
			if !strings.HasSuffix(action, "/api/gatewaynotification/bdpsp_b/"+c.path) {
				t.Fatalf("return goes to %s", action)
			}
			back := providertest.PostForm(t, nil, action, form.Encode())
			r := h.got.Next(t)
			if r.err != nil || r.n.Outcome != c.want || r.n.OrderID != "P2026B"+c.outcome {
				t.Fatalf("verified %+v, %v", r.n, r.err)
			}
			if back.StatusCode != http.StatusSeeOther || back.Header.Get("Location") == "" {
				t.Fatalf("payer not redirected: HTTP %d %q", back.StatusCode, back.Header.Get("Location"))
			}
			if c.want == provider.OutcomePaid && (r.n.Paid != provider.Money{Amount: 1215000, Currency: "BDT"} || r.n.Ref != in.Ref || r.n.InitRef != in.Ref) {
				t.Fatalf("paid %+v ref %q/%q, want 12150.00 BDT and %q", r.n.Paid, r.n.Ref, r.n.InitRef, in.Ref)
			}
		})
	}
}

// Settle is the sandbox's pay and fail buttons: it posts the return form
// itself, as the browser would; settling again posts the same return, which
// verifies the same.
func TestSettle(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	paid, failed := h.initialise(t, "P2026Bspaid"), h.initialise(t, "P2026Bsfail")
	if err := h.sim.Settle(ctx, paid.Ref, true); err != nil {
		t.Fatal(err)
	}
	first := h.got.Next(t)
	if first.err != nil || first.n.Outcome != provider.OutcomePaid || first.n.Paid.Amount != 1215000 {
		t.Fatalf("settled paid: %+v, %v", first.n, first.err)
	}
	if err := h.sim.Settle(ctx, paid.Ref, true); err != nil {
		t.Fatal(err)
	}
	if again := h.got.Next(t); again.err != nil || !reflect.DeepEqual(again.n, first.n) {
		t.Fatalf("second return verified differently: %+v, %v", again.n, again.err)
	}
	if err := h.sim.Settle(ctx, failed.Ref, false); err != nil {
		t.Fatal(err)
	}
	if r := h.got.Next(t); r.err != nil || r.n.Outcome != provider.OutcomeFailed {
		t.Fatalf("settled failed: %+v, %v", r.n, r.err)
	}
	if err := h.sim.Settle(ctx, paid.Ref, false); err == nil {
		t.Fatal("a paid payment failed afterwards")
	}
	if err := h.sim.Settle(ctx, "nosuch", true); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("unknown payment: %v", err)
	}
}

func TestQuery(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	in := h.initialise(t, "P2026Bq")
	cases := []struct {
		name    string
		settle  func()
		orderID string
		want    provider.Outcome
		wantErr error
	}{
		{"before paying", func() {}, "P2026Bq", provider.OutcomePending, nil},
		{"paid", func() { _ = h.sim.Settle(ctx, in.Ref, true); h.got.Next(t) }, "P2026Bq", provider.OutcomePaid, nil},
		{"unknown order", func() {}, "P2026Bnothing", 0, provider.ErrNotFound},
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
		})
	}
}
