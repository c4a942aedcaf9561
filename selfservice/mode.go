package selfservice

import (
	"context"

	"github.com/paygate/gateway/access"
)

// Sandbox reports whether the actor's merchant is a sandbox one, for the
// bar every console page then carries. Any person of the merchant may
// know it. A merchant is created live or sandbox and stays so, so the
// answer is kept after the first read: pages do not pay a Redis round
// trip each for it.
func (d *Keys) Sandbox(ctx context.Context, actor access.Actor) (bool, error) {
	if actor.AppID == "" {
		return false, errForbidden
	}
	if sb, ok := d.modes.Load(actor.AppID); ok {
		return sb.(bool), nil
	}
	a, err := d.merchants.Get(ctx, actor.AppID)
	if err != nil {
		return false, err
	}
	d.modes.Store(a.AppID, a.Sandbox)
	return a.Sandbox, nil
}
