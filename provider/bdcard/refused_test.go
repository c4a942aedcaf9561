package bdcard_test

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

	bdcard "github.com/paygate/gateway/provider/bdcard"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// paidIPN pays a fresh order through the simulator and returns the IPN body
// the receiver got, verified.
func (h *harness) paidIPN(t *testing.T, orderID string) result {
	t.Helper()
	in := h.initialise(t, orderID)
	if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	r := h.got.Next(t)
	if r.err != nil || r.n.Outcome != provider.OutcomePaid {
		t.Fatalf("paid IPN: %+v, %v", r.n, r.err)
	}
	return r
}

// edit changes an IPN body; resign signs it again with password over the
// names of its verify_key (or names, when given).
func edit(t *testing.T, body string, change func(map[string]string), resign string, names ...string) string {
	t.Helper()
	form, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]string{}
	for k := range form {
		f[k] = form.Get(k)
	}
	change(f)
	if resign != "" {
		if names == nil {
			names = strings.Split(f[bdcard.FieldVerifyKey], ",")
		}
		if err := bdcard.Sign(f, names, resign); err != nil {
			t.Fatal(err)
		}
	}
	out := url.Values{}
	for k, v := range f {
		out.Set(k, v)
	}
	return out.Encode()
}

// Each refusal is an IPN posted to our receiver; the verdict and our answer
// are checked. Re-signed cases use the sandbox password: what a leak of it
// would allow, and what the validation call still stops.
func TestRefusedNotifications(t *testing.T) {
	h := newHarness(t, bdcard.FamilyCard)
	good := h.paidIPN(t, "P2026refuse")
	pw := bdcard.SandboxConfig("").StorePassword
	set := func(k, v string) func(map[string]string) { return func(f map[string]string) { f[k] = v } }
	cases := []struct {
		name   string
		body   string
		want   error
		status int
	}{
		{"forged signature", edit(t, good.body, set(bdcard.FieldVerifySign, strings.Repeat("0", 32)), ""), provider.ErrSignature, 400},
		{"tampered amount", edit(t, good.body, set("amount", "1.00"), ""), provider.ErrSignature, 400},
		{"signed with another password", edit(t, good.body, set("amount", "1.00"), "guess"), provider.ErrSignature, 400},
		{"amount left out of the signature", edit(t, good.body, set("amount", "1.00"), pw, "tran_id", "status", "val_id", "currency"), provider.ErrSignature, 400},
		{"re-signed amount the provider did not validate", edit(t, good.body, set("amount", "1.00"), pw), provider.ErrUnverified, 400},
		{"re-signed currency the provider did not validate", edit(t, good.body, set("currency", "USD"), pw), provider.ErrUnverified, 400},
		{"re-signed unknown validation id", edit(t, good.body, set("val_id", "nosuchval"), pw), provider.ErrUnverified, 400},
		{"re-signed other order", edit(t, good.body, set("tran_id", "P2026other"), pw), provider.ErrUnverified, 400},
		{"re-signed unknown status", edit(t, good.body, set("status", "MAYBE"), pw), provider.ErrMalformed, 400},
		{"field given twice", good.body + "&tran_id=P2026refuse", provider.ErrMalformed, 400},
		{"empty body", "", provider.ErrSignature, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := providertest.PostForm(t, nil, h.base+"/api/gatewaynotification/"+h.family+"/ipn", c.body)
			r := h.got.Next(t)
			if !errors.Is(r.err, c.want) {
				t.Fatalf("err = %v, want %v", r.err, c.want)
			}
			if res.StatusCode != c.status {
				t.Fatalf("answered HTTP %d, want %d", res.StatusCode, c.status)
			}
		})
	}
	t.Run("replay verifies the same", func(t *testing.T) {
		res := providertest.PostForm(t, nil, h.base+"/api/gatewaynotification/"+h.family+"/ipn", good.body)
		r := h.got.Next(t)
		if r.err != nil || !reflect.DeepEqual(r.n, good.n) || res.StatusCode != http.StatusOK {
			t.Fatalf("replay: HTTP %d %+v, %v", res.StatusCode, r.n, r.err)
		}
	})
}

// A signed IPN whose validation cannot be asked (the provider is down or
// hangs) is neither paid nor refused for good: ErrUnavailable, answered 503
// so that the provider sends it again; the error never shows the password.
func TestValidationUnavailable(t *testing.T) {
	h := newHarness(t, bdcard.FamilyCard)
	good := h.paidIPN(t, "P2026down")
	form, _ := url.ParseQuery(good.body)
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
			a := newAdapter(t, bdcard.SandboxConfig(down.URL), provider.CallerConfig{Timeout: 100 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
			n, err := a.Verify(context.Background(), &provider.Request{Form: form, Path: "ipn"})
			if !errors.Is(err, provider.ErrUnavailable) || n.Outcome == provider.OutcomePaid {
				t.Fatalf("Verify: %+v, %v", n, err)
			}
			if strings.Contains(err.Error(), bdcard.SandboxConfig("").StorePassword) {
				t.Fatalf("error shows the store password: %v", err)
			}
			if rep := a.Reply(n, err); rep.Status != http.StatusServiceUnavailable {
				t.Fatalf("reply %+v", rep)
			}
		})
	}
}
