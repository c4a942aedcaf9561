package fiatpsp

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
)

// ReturnFail is the path of the payer's browser coming back from the
// provider's failure_url. The provider notifies payments only, so without
// it a payment that failed at the provider would leave the order waiting
// until it expired.
const ReturnFail = "return/fail"

// returnMark marks, in Notification.Fields, an answer to a browser return:
// Reply then sends the payer on instead of answering the provider.
const returnMark = "return"

// verifyReturn takes the payer's browser back from failure_url
// (?paymentId=our order id). The browser is never trusted: the provider's
// status for the order decides. Failed or paid stands; anything else
// wraps ErrUnverified, so that a forged return fails nothing.
func (a *Adapter) verifyReturn(ctx context.Context, r *provider.Request) (provider.Notification, error) {
	id := r.Query.Get("paymentId")
	if err := wire.CheckID("paymentId", id); err != nil {
		return provider.Notification{}, fmt.Errorf("fiatpsp %s: %w: %w", ReturnFail, provider.ErrMalformed, err)
	}
	marked := provider.Notification{OrderID: id, Fields: map[string]string{returnMark: ReturnFail}}
	n, err := a.Query(ctx, id, "")
	if err != nil {
		return marked, fmt.Errorf("fiatpsp %s for %s: %w: %w", ReturnFail, id, provider.ErrUnverified, err)
	}
	if n.Outcome != provider.OutcomeFailed && n.Outcome != provider.OutcomePaid {
		return marked, fmt.Errorf("fiatpsp %s for %s: the provider says %s: %w", ReturnFail, id, n.Outcome, provider.ErrUnverified)
	}
	n.Fields[returnMark] = ReturnFail
	return n, nil
}

func isReturn(r *provider.Request) bool { return strings.Trim(r.Path, "/") == ReturnFail }

// returnReply sends the payer's browser on to the order's page (the gateway
// fills in its address), whatever the provider's status said.
func returnReply() provider.Reply { return provider.Reply{Status: http.StatusSeeOther} }
