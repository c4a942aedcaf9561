package command

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// AdminApprove is an administrator's approval of the hash order id holds
// under review, from either door (the CLI, the operator console): it says
// what was checked (d.Note). A paid order, or one without a hash, takes
// none: approving again the hash that paid would answer as a repeat.
func (r *USDTReview) AdminApprove(ctx context.Context, id string, d usdt.Decision) (*schema.Order, error) {
	if d.Note == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "an approval says what was checked (a note)")
	}
	o, err := r.held(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.Approve(ctx, id, o.TxHash, d)
}

// AdminReject is an administrator's rejection of the hash order id holds
// under review; d.Reason, which Reject requires, is what the payer reads.
func (r *USDTReview) AdminReject(ctx context.Context, id string, d usdt.Decision) (*schema.Order, error) {
	o, err := r.held(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.Reject(ctx, id, o.TxHash, d)
}

// held reads usdt_direct order id for a decision on the hash it holds.
func (r *USDTReview) held(ctx context.Context, id string) (*schema.Order, error) {
	o, err := r.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.Status == schema.StatusPaid {
		return nil, platform.Errorf(platform.KindConflict, "order %s is paid already", id)
	}
	if o.TxHash == "" {
		return nil, platform.Errorf(platform.KindConflict, "order %s has no transaction hash under review", id)
	}
	return o, nil
}
