package dispatcher

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/schema"
)

// An order made through the epay door (schema.DoorEpay) is notified in
// that protocol's form: a GET to its notify_url carrying the parameters
// epay.NotifyParams lists, signed with epay.Sign and the merchant's API
// key, acknowledged like SPEC.md's by a body "success". It is the same
// delivery otherwise (schedule, dead letters, attempt log, resend), and
// its stored parameters are the form of encodeCallback, which the log
// shows as for any other.

// epayParams are an epay order's paid notification parameters; types
// names the type when the payer chose the method (the order keeps no word
// then). The protocol has no refund notification, so a refund of such an
// order schedules nothing (the merchant reads refunds through api.php).
func epayParams(ctx context.Context, o *schema.Order, types epay.TypeSource) schema.Params {
	return schema.Params(epay.NotifyParams(o, epay.TypeWord(ctx, o, types)))
}

// isEpayForm tells an epay notification's stored parameters from SPEC.md's
// callbacks, whose names never include trade_status.
func isEpayForm(form string) bool {
	return strings.Contains("&"+form+"&", "&trade_status="+epay.TradeSuccess+"&")
}

// sendEpay makes one attempt of an epay notification: its parameters and
// their sign appended to notify_url, sent as a GET.
func sendEpay(ctx context.Context, c *fasthttp.Client, j job, key string, timeout time.Duration) result {
	q, err := url.ParseQuery(j.form)
	if err != nil {
		return result{kind: "internal", err: fmt.Sprintf("stored callback parameters cannot be read: %v", err)}
	}
	p := make(epay.Params, len(q))
	for k := range q {
		p[k] = q.Get(k)
	}
	target := epay.WithQuery(j.url, epay.SignedQuery(p, key))
	return request(ctx, c, fasthttp.MethodGet, target, "", "", false, modernHeaders{}, timeout)
}
