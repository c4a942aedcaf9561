package command

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Drive pays or fails a sandbox order the way Pay and Fail do, for a caller
// that has authenticated the merchant otherwise (the merchant console's
// session) and checked the order is its own.
func (s *SandboxOrders) Drive(ctx context.Context, o *schema.Order, to schema.Status) (*schema.Order, error) {
	if !o.Sandbox {
		return nil, platform.Errorf(platform.KindForbidden, "only sandbox orders can be driven")
	}
	out, err := s.drive(ctx, o, to)
	if err != nil {
		return nil, err
	}
	return out.Order, nil
}
