package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/sdk/go/client"
)

// listPages creates three orders and finds them all by walking the listing
// two a page: the paging helper crosses pages. The listing is read from
// the projection, which lags the orders a moment: it is read again until
// they are there.
func listPages(t *testing.T, c *client.Client, run string) {
	t.Helper()
	ctx := context.Background()
	want := map[string]bool{}
	for _, n := range []string{"list-1", "list-2", "list-3"} {
		cr, err := c.Create(ctx, client.CreateRequest{Amount: "1.00", Currency: "USD", PaymentMethod: "wallet_b",
			ClientOrderID: "go-" + run + "-" + n})
		if err != nil {
			t.Fatal(err)
		}
		want[cr.PaymentID] = true
	}
	from := time.Now().Add(-10 * time.Minute)
	deadline := time.Now().Add(30 * time.Second)
	for {
		found := 0
		for o, err := range c.AllOrders(ctx, client.ListParams{Limit: 2, Currency: "USD", From: from}) {
			if err != nil {
				t.Fatal(err)
			}
			if want[o.PaymentID] {
				found++
			}
		}
		if found == len(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listing shows %d of the %d orders after 30 s", found, len(want))
		}
		time.Sleep(200 * time.Millisecond)
	}
	first, err := c.Orders(ctx, client.ListParams{Limit: 2, Currency: "USD", From: from})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Orders) != 2 || !first.HasNext() || first.Total < 3 {
		t.Fatalf("first page of two: %d orders, total %d, next %v", len(first.Orders), first.Total, first.HasNext())
	}
}

// refusals: the gateway's refusals arrive as *client.Error of its kind and
// status.
func refusals(t *testing.T, c *client.Client, e liveEnv) {
	t.Helper()
	ctx := context.Background()
	_, err := c.Order(ctx, "no-such-order")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Kind != client.KindOrderNotFound || apiErr.Status != http.StatusNotFound {
		t.Fatalf("a missing order: %#v", err)
	}
	wrong, err := client.New(client.Config{BaseURL: e.base, AppID: e.appID, APIKey: "not-the-key", ClientIP: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wrong.Create(ctx, client.CreateRequest{Amount: "1", Currency: "CNY", PaymentMethod: "wallet_a"})
	if !errors.As(err, &apiErr) || apiErr.Kind != client.KindInvalidSign || apiErr.Status != http.StatusUnauthorized {
		t.Fatalf("signed with a wrong key: %#v", err)
	}
}

// verifyBoth checks the real paid webhook with each form and both, then
// refuses it tampered, stale and without a header.
func verifyBoth(t *testing.T, e liveEnv, hook received, paid *client.Created) {
	t.Helper()
	tests := []struct {
		name string
		v    client.Verifier
		edit func(h http.Header, body string) string
		want error
	}{
		{"both forms", client.Verifier{APIKey: e.apiKey, Secret: e.secret}, nil, nil},
		{"MD5 form", client.Verifier{APIKey: e.apiKey}, nil, nil},
		{"Standard Webhooks headers", client.Verifier{Secret: e.secret}, nil, nil},
		{"tampered amount, MD5 form", client.Verifier{APIKey: e.apiKey}, tamper, client.ErrSignature},
		{"tampered amount, headers", client.Verifier{Secret: e.secret}, tamper, client.ErrSignature},
		{"stale timestamp", client.Verifier{APIKey: e.apiKey, Secret: e.secret,
			Now: func() time.Time { return time.Now().Add(10 * time.Minute) }}, nil, client.ErrTimestamp},
		{"missing signature header", client.Verifier{APIKey: e.apiKey, Secret: e.secret},
			func(h http.Header, body string) string { h.Del(client.HeaderWebhookSignature); return body }, client.ErrMissingHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := tt.v.Callback(hook.request(tt.edit))
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err == nil && (cb.PaymentID != paid.PaymentID || cb.Amount != "100.50" || !cb.Paid() || cb.ClientOrderID != paid.ClientOrderID) {
				t.Fatalf("webhook %+v", cb)
			}
		})
	}
}

func tamper(_ http.Header, body string) string {
	return strings.Replace(body, "amount=100.50", "amount=1.00", 1)
}
