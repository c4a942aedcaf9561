package command

import (
	"fmt"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// channelAdapter is the adapter of the channel o went through: its
// notifications, queries and refunds belong to that provider account and
// no other (an order from before channels is on channel.Default). A
// channel no longer configured is an error naming it for the operator
// (the message a merchant sees does not: channel ids are the operator's).
func channelAdapter(reg *provider.Registry, o *schema.Order) (provider.Adapter, error) {
	if a, ok := reg.ForChannel(o.Method, o.Sandbox, o.Channel); ok {
		return a, nil
	}
	ref := channel.OfOrder(o)
	if _, ok := reg.For(o.Method, o.Sandbox); !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available", o.Method)
	}
	return nil, &platform.Error{Kind: platform.KindUnavailable,
		Msg: "the provider account this order went through is no longer configured; the operator can see which",
		Err: fmt.Errorf("order %s: channel %s is not configured on this process", o.ID, ref)}
}

// pendingAdapter is the adapter an order not yet at its provider is sent
// to: its channel's when routing already chose one, else method m's
// default (the form from before channels).
func pendingAdapter(reg *provider.Registry, m schema.Method, o *schema.Order) (provider.Adapter, error) {
	if o.Channel != "" && o.Method == m {
		return channelAdapter(reg, o)
	}
	a, ok := reg.For(m, o.Sandbox)
	if !ok {
		return nil, platform.Errorf(platform.KindMethodUnavailable, "paymentMethod %s is not available", m)
	}
	return a, nil
}
