package command

import (
	"context"
	"errors"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// channels are the channels a notification to family's endpoint of the
// mode may be verified with: chID's alone on its channel path, every one
// of the family's, in configuration order, on the plain path. An unknown
// family or channel is a route that does not exist.
func (h *Notifications) channels(family schema.Method, sandbox bool, chID string) ([]provider.Channel, error) {
	all := h.providers.All(family, sandbox)
	if len(all) == 0 {
		return nil, platform.Errorf(platform.KindRouteNotFound, "no provider %q", family)
	}
	if chID == "" {
		return all, nil
	}
	for _, c := range all {
		if c.ID == chID {
			return []provider.Channel{c}, nil
		}
	}
	return nil, platform.Errorf(platform.KindRouteNotFound, "no provider %q channel %q", family, chID)
}

// verifyAny verifies req with the first of chs whose secret signed it: a
// bad signature tries the next channel, any other answer (verified, or
// refused otherwise) is the answer. When a channel verifies a notification
// for an order of another of these channels, the order's own channel is
// asked too, so accounts that share a secret (the sandbox's) do not refuse
// each other's orders; only if it does not verify does the first channel's
// answer stand (and apply refuses it: channel_mismatch).
func (h *Notifications) verifyAny(ctx context.Context, chs []provider.Channel, req *provider.Request) (provider.Channel, provider.Notification, error) {
	var (
		n   provider.Notification
		err error
	)
	for i, c := range chs {
		n, err = c.Adapter.Verify(ctx, req)
		if errors.Is(err, provider.ErrSignature) && i+1 < len(chs) {
			continue
		}
		if err == nil && len(chs) > 1 {
			if own, on, ok := h.orderChannel(ctx, chs, c, n, req); ok {
				return own, on, nil
			}
		}
		return c, n, err
	}
	return chs[0], n, err // unreachable: chs is never empty
}

// orderChannel is the notification as verified by its order's channel,
// when that is another of chs and verifies it.
func (h *Notifications) orderChannel(ctx context.Context, chs []provider.Channel, by provider.Channel, n provider.Notification, req *provider.Request) (provider.Channel, provider.Notification, bool) {
	o, err := h.settle.store.Get(ctx, n.OrderID)
	if err != nil {
		return provider.Channel{}, provider.Notification{}, false
	}
	want := channel.OfOrder(o).ID
	for _, c := range chs {
		if c.ID == want && c.ID != by.ID {
			if on, err := c.Adapter.Verify(ctx, req); err == nil {
				return c, on, true
			}
		}
	}
	return provider.Channel{}, provider.Notification{}, false
}
