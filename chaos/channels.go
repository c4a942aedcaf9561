package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// chaosChannels are the sandbox channels every gateway of a run has
// (GATEWAY_SANDBOX_CHANNELS): the channels scenario breaks the first two
// of wallet_a and wallet_b and leaves the third to serve.
const chaosChannels = "default,alt,spare"

// channelFaults is one channel's provider hanging and another's resetting
// connections, for both wallet methods of the load, while creates go on:
// every create must still be answered by the third channel (the scenario
// refuses any failed create), and both broken channels' breakers must have
// opened by the end of the hold. The faults are then lifted and the
// breakers closed by hand, so the next scenario starts with every channel.
func channelFaults(ctx context.Context, c *Cluster, hold time.Duration) error {
	faults := []struct{ channel, mode string }{{"default", "hang"}, {"alt", "reset"}}
	walletMethods := []string{"wallet_a", "wallet_b"}
	set := func(mode func(string) string) error {
		var errs []error
		for _, m := range walletMethods {
			for _, f := range faults {
				errs = append(errs, c.cli(ctx, nil, "", "sandbox", "fault", m, f.channel, mode(f.mode)))
			}
		}
		return errors.Join(errs...)
	}
	if err := set(func(m string) string { return m }); err != nil {
		return err
	}
	held := sleep(ctx, hold)
	open, lerr := c.openChannels(ctx)
	errs := []error{held, lerr, set(func(string) string { return "off" })}
	for _, m := range walletMethods {
		for _, f := range faults {
			ref := "sandbox." + m + "." + f.channel
			if !open[ref] {
				errs = append(errs, fmt.Errorf("channel %s (%s) kept its breaker closed through the fault", ref, f.mode))
			}
			// Closing one that is closed already is no error worth a
			// failed run; the check above has spoken.
			_ = c.cli(ctx, nil, "", "channel", "breaker", "close", ref, "--reason", "chaos scenario over", "--by", "chaos")
		}
	}
	return errors.Join(errs...)
}

// openChannels are the channels whose breaker is open now.
func (c *Cluster) openChannels(ctx context.Context) (map[string]bool, error) {
	var list struct {
		Channels []struct{ Channel, State string } `json:"channels"`
	}
	if err := c.cli(ctx, &list, "", "channel", "list", "--json"); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, ch := range list.Channels {
		out[ch.Channel] = ch.State == "open" || ch.State == "half_open"
	}
	return out, nil
}
