package epay

import (
	"context"

	"github.com/paygate/gateway/schema"
)

// Returns signs the way back of the door's orders: a paid order's payer
// goes to return_url with the notification's parameters and sign (the
// merchant's API key of now), as the protocol's return page expects.
type Returns struct {
	Accounts Accounts
	Types    TypeSource
}

// ReturnLink is o's signed return link, or "" when o is not a paid order
// of this door with a return_url (the pages then keep SPEC.md's rule) or
// its merchant cannot be read (the plain return_url is shown instead).
func (r Returns) ReturnLink(ctx context.Context, o *schema.Order) string {
	if o.Door != schema.DoorEpay || o.Status != schema.StatusPaid || o.ReturnURL == "" {
		return ""
	}
	acct, err := r.Accounts.Lookup(ctx, o.AppID)
	if err != nil {
		return ""
	}
	return ReturnURL(o, acct.APIKey, TypeWord(ctx, o, r.Types))
}
