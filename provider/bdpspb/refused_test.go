package bdpspb_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	bdpspb "github.com/paygate/gateway/provider/bdpspb"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

func ret(txn string, extra ...string) url.Values {
	v := url.Values{"mer_txnid": {txn}, "pay_status": {"Successful"}, "amount": {"12150.00"}, "currency": {"BDT"}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v
}

// A browser return is never trusted: each case posts one to our receiver
// after putting the provider in some state, and checks the verdict. The
// payer is redirected onwards whatever it is.
func TestReturnsVerifiedBySearch(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.initialise(t, "P2026Rpending")
	failed := h.initialise(t, "P2026Rfailed")
	paid := h.initialise(t, "P2026Rpaid")
	for _, s := range []struct {
		ref  string
		paid bool
	}{{failed.Ref, false}, {paid.Ref, true}} {
		if err := h.sim.Settle(ctx, s.ref, s.paid); err != nil {
			t.Fatal(err)
		}
		h.got.Next(t)
	}
	cases := []struct {
		name    string
		path    string
		form    url.Values
		want    provider.Outcome
		wantErr error
	}{
		{"success before paying", "return/success", ret("P2026Rpending"), 0, provider.ErrUnverified},
		{"success after a failure", "return/success", ret("P2026Rfailed"), 0, provider.ErrUnverified},
		{"success for an unknown order", "return/success", ret("P2026Rnothing"), 0, provider.ErrUnverified},
		{"success with a tampered amount pays the searched one", "return/success", ret("P2026Rpaid", "amount", "1.00"), provider.OutcomePaid, nil},
		{"fail while pending", "return/fail", ret("P2026Rpending", "pay_status", "Failed"), 0, provider.ErrUnverified},
		{"fail for an unknown order", "return/fail", ret("P2026Rnothing", "pay_status", "Failed"), 0, provider.ErrUnverified},
		{"fail after paying is paid", "return/fail", ret("P2026Rpaid", "pay_status", "Failed"), provider.OutcomePaid, nil},
		{"cancel while pending", "return/cancel", ret("P2026Rpending", "pay_status", "Cancelled"), provider.OutcomeCancelled, nil},
		{"cancel for an unknown order", "return/cancel", ret("P2026Rnothing"), provider.OutcomeCancelled, nil},
		{"cancel after paying is paid", "return/cancel", ret("P2026Rpaid"), provider.OutcomePaid, nil},
		{"no transaction id", "return/success", url.Values{"pay_status": {"Successful"}}, 0, provider.ErrMalformed},
		{"transaction id given twice", "return/success", url.Values{"mer_txnid": {"P2026Rpaid", "P2026Rpending"}}, 0, provider.ErrMalformed},
		{"odd transaction id", "return/success", ret("P2026<script>"), 0, provider.ErrMalformed},
		{"unknown return", "return/maybe", ret("P2026Rpaid"), 0, provider.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, r := h.returnTo(t, c.path, c.form)
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("payer answered HTTP %d, want 303", res.StatusCode)
			}
			if c.wantErr != nil {
				if !errors.Is(r.err, c.wantErr) || r.n.Outcome == provider.OutcomePaid {
					t.Fatalf("verdict %+v, %v; want %v", r.n, r.err, c.wantErr)
				}
				return
			}
			if r.err != nil || r.n.Outcome != c.want {
				t.Fatalf("verdict %+v, %v; want %v", r.n, r.err, c.want)
			}
			if c.want == provider.OutcomePaid && r.n.Paid != (provider.Money{Amount: 1215000, Currency: "BDT"}) {
				t.Fatalf("paid %+v, want the searched 12150.00 BDT", r.n.Paid)
			}
		})
	}
	t.Run("replay verifies the same", func(t *testing.T) {
		_, a := h.returnTo(t, "return/success", ret("P2026Rpaid"))
		_, b := h.returnTo(t, "return/success", ret("P2026Rpaid"))
		if a.err != nil || !reflect.DeepEqual(a.n, b.n) {
			t.Fatalf("replay: %+v / %+v, %v", a.n, b.n, a.err)
		}
	})
}

// A return whose search cannot be made (the provider is down or hangs) is
// not paid: ErrUnavailable, and the signature key is not in the error.
func TestSearchUnavailable(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }},
		{"hangs", providertest.Hang},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			down := httptest.NewServer(c.handler)
			t.Cleanup(down.Close)
			a := newAdapter(t, bdpspb.SandboxConfig(down.URL), provider.CallerConfig{Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
			n, err := a.Verify(context.Background(), &provider.Request{Form: ret("P2026down"), Path: "return/success"})
			if !errors.Is(err, provider.ErrUnavailable) || n.Outcome == provider.OutcomePaid {
				t.Fatalf("Verify: %+v, %v", n, err)
			}
			if strings.Contains(err.Error(), bdpspb.SandboxConfig("").SignatureKey) {
				t.Fatalf("error shows the signature key: %v", err)
			}
		})
	}
}
