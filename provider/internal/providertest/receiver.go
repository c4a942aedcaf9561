package providertest

import (
	"context"
	"net/http"
	"testing"

	"github.com/paygate/gateway/provider"
)

// Delivery is one notification as a Receiver got it, and what the
// adapter's Verify made of it.
type Delivery struct {
	Header http.Header
	Body   []byte
	N      provider.Notification
	Err    error
}

// Receiver stands in for the gateway's notification endpoint of a family
// whose notifications are a signed body (the JSON webhooks of the crypto
// providers): it hands the adapter's Verify the headers, the body and the
// path after the route's prefix, answers the adapter's Reply, and logs
// every delivery, retries included.
type Receiver struct {
	Adapter provider.Adapter
	Log[Delivery]
}

// Receive is the endpoint's work on one delivery: header and body as
// received, path after the route's prefix; it answers the adapter's Reply.
// Tests mount it with web/sandbox/sandboxtest.Handle.
func (r *Receiver) Receive(ctx context.Context, header http.Header, body []byte, path string) provider.Reply {
	d := Delivery{Header: header, Body: body}
	d.N, d.Err = r.Adapter.Verify(ctx, &provider.Request{Header: d.Header, Body: d.Body, Path: path})
	r.Add(d)
	return r.Adapter.Reply(d.N, d.Err)
}

// WaitFor returns the first delivery that verified with outcome o.
func (r *Receiver) WaitFor(t testing.TB, o provider.Outcome) Delivery {
	t.Helper()
	return r.Log.WaitFor(t, o.String()+" notification", func(d Delivery) bool { return d.Err == nil && d.N.Outcome == o })
}
