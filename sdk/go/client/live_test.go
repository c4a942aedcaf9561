package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/sdk/go/client"
)

// liveEnv is the gateway make test-sdk started and its sandbox merchant.
type liveEnv struct {
	base, appID, apiKey, queryKey, secret string
}

// live skips unless a gateway is there to test against (a developer
// running the SDK's tests alone runs every other test).
func live(t *testing.T) liveEnv {
	t.Helper()
	e := liveEnv{os.Getenv("GATEWAY_SDK_BASE_URL"), os.Getenv("GATEWAY_SDK_APPID"), os.Getenv("GATEWAY_SDK_API_KEY"),
		os.Getenv("GATEWAY_SDK_QUERY_KEY"), os.Getenv("GATEWAY_SDK_WEBHOOK_SECRET")}
	if e.base == "" {
		t.Skip("GATEWAY_SDK_BASE_URL unset: no gateway to test against (make test-sdk starts one)")
	}
	if e.appID == "" || e.apiKey == "" || e.queryKey == "" || e.secret == "" {
		t.Fatal("GATEWAY_SDK_APPID, _API_KEY, _QUERY_KEY and _WEBHOOK_SECRET are required with GATEWAY_SDK_BASE_URL")
	}
	return e
}

// received is one webhook as a receiver got it.
type received struct {
	header http.Header
	body   []byte
}

// request rebuilds it as a receiver's handler would see it, with edit
// applied to a copy of its headers and body.
func (r received) request(edit func(h http.Header, body string) string) *http.Request {
	h := r.header.Clone()
	body := string(r.body)
	if edit != nil {
		body = edit(h, body)
	}
	req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	req.Header = h
	return req
}

// receiver is the merchant's loopback webhook endpoint: it keeps what
// arrives and acknowledges it with success.
func receiver(t *testing.T) (string, <-chan received) {
	t.Helper()
	ch := make(chan received, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case ch <- received{r.Header.Clone(), body}:
		default:
		}
		io.WriteString(w, "success")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hook", ch
}

// TestLive drives the SDK against the real gateway: create, the hosted
// page, read, list across pages, cancel, pay in the sandbox, the paid
// webhook verified in both forms (and refused tampered, stale or
// unsigned), refund, balance, typed refusals.
func TestLive(t *testing.T) {
	e := live(t)
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: e.base, AppID: e.appID, APIKey: e.apiKey, QueryKey: e.queryKey, ClientIP: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	hookURL, hooks := receiver(t)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	order := func(t *testing.T, n string) client.CreateRequest {
		return client.CreateRequest{Amount: "100.50", Currency: "CNY", PaymentMethod: "wallet_a",
			ClientOrderID: "go-" + run + "-" + n, NotifyURL: hookURL, Description: "Go SDK " + n}
	}
	var paid *client.Created
	step(t, "create and read", func(t *testing.T) {
		var err error
		if paid, err = c.Create(ctx, order(t, "paid")); err != nil {
			t.Fatal(err)
		}
		again, err := c.Create(ctx, order(t, "paid"))
		if err != nil || again.PaymentID != paid.PaymentID || !again.Idempotent {
			t.Fatalf("the same clientOrderId again: %+v, %v", again, err)
		}
		o, err := c.Order(ctx, paid.PaymentID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Amount != "100.50" || o.Currency != "CNY" || o.ClientOrderID != paid.ClientOrderID || o.Paid() || o.NotifyURL != hookURL {
			t.Fatalf("read back %+v", o)
		}
	})
	step(t, "hosted URL answers 200", func(t *testing.T) {
		r := order(t, "hosted")
		r.ClientIP = "127.0.0.1"
		u, err := c.HostedURL(r)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", u, resp.Status)
		}
	})
	step(t, "cancel", func(t *testing.T) {
		cr, err := c.Create(ctx, order(t, "cancel"))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // a cancelled order stays cancelled
			o, err := c.Cancel(ctx, cr.PaymentID)
			if err != nil || o.Status != client.StatusCancelled || o.StatusStr != "cancelled" {
				t.Fatalf("cancel: %+v, %v", o, err)
			}
		}
	})
	step(t, "list across pages", func(t *testing.T) { listPages(t, c, run) })
	step(t, "typed refusals", func(t *testing.T) { refusals(t, c, e) })
	var hook received
	step(t, "pay and receive the paid webhook", func(t *testing.T) {
		sandboxPay(t, e, paid.PaymentID)
		hook = webhookOf(t, hooks, paid.PaymentID, "")
	})
	step(t, "the paid webhook verified in both forms", func(t *testing.T) { verifyBoth(t, e, hook, paid) })
	step(t, "refund", func(t *testing.T) {
		rf, err := c.Refund(ctx, client.RefundRequest{PaymentID: paid.PaymentID, Amount: "30.00", Reason: "Go SDK test", ClientRefundID: "r-" + run})
		if err != nil {
			t.Fatal(err)
		}
		if rf.PaymentID != paid.PaymentID || rf.Amount != "30.00" || rf.Status == client.RefundFailed {
			t.Fatalf("refund %+v", rf)
		}
		_, err = c.Refund(ctx, client.RefundRequest{PaymentID: paid.PaymentID, Amount: "1000.00"})
		if kind(err) != client.KindRefundExceedsPaid {
			t.Fatalf("refund beyond the paid amount: %v", err)
		}
		t.Logf("refund %s %s", rf.RefundID, rf.Status)
		if rf.Status != client.RefundSucceeded {
			return // its webhook comes when the provider settles it
		}
		h := webhookOf(t, hooks, paid.PaymentID, "refund")
		cb, err := client.Verifier{APIKey: e.apiKey, Secret: e.secret}.Callback(h.request(nil))
		if err != nil || cb.RefundID != rf.RefundID || cb.RefundStatus != client.RefundSucceeded || cb.Amount != "30.00" {
			t.Fatalf("refund webhook %+v, %v", cb, err)
		}
	})
	step(t, "balance", func(t *testing.T) {
		bs, err := c.Balance(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if _, err := client.ParseMinor(b.Total); err != nil || len(b.Currency) != 3 {
				t.Fatalf("balance %+v: %v", b, err)
			}
			t.Logf("balance %+v", b)
		}
		n := 0
		for tx, err := range c.AllTransactions(ctx, client.TransactionParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			if _, err := client.ParseMinor(tx.Net); err != nil {
				t.Fatalf("transaction %+v: %v", tx, err)
			}
			n++
		}
		t.Logf("%d transactions", n)
	})
}

// step runs a part of the live test; a failed part ends it (the next ones
// build on it).
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

func kind(err error) string {
	var apiErr *client.Error
	if errors.As(err, &apiErr) {
		return apiErr.Kind
	}
	return ""
}

// sandboxPay pays an order through the sandbox driver (not part of the
// SDK: a sandbox merchant's test tool).
func sandboxPay(t *testing.T, e liveEnv, id string) {
	t.Helper()
	form := url.Values{"appid": {e.appID}, "key": {e.queryKey}}
	resp, err := http.PostForm(e.base+"/sandbox/orders/"+url.PathEscape(id)+"/pay", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"paid"`)) {
		t.Fatalf("sandbox pay: %s %s", resp.Status, body)
	}
}

// webhookOf waits for the order's webhook of event at the receiver ("" the
// paid webhook, "refund" a refund's).
func webhookOf(t *testing.T, hooks <-chan received, id, event string) received {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case h := <-hooks:
			form, _ := url.ParseQuery(string(h.body))
			if form.Get("paymentId") == id && form.Get("event") == event {
				return h
			}
		case <-deadline:
			t.Fatalf("no %q webhook for %s within a minute", event, id)
		}
	}
}
