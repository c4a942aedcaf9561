package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

const sandboxUsage = `usage: gateway sandbox <subcommand> [--redis-url URL]

  fault METHOD CHANNEL restricted|hang|reset|off
                        switch the sandbox simulator of METHOD's channel
                        CHANNEL (e.g. wallet_a alt): restricted answers its
                        payment creation as the provider answers a
                        restricted account (docs/channels.md, "Sandbox
                        faults"); hang holds it past the caller's time-out;
                        reset closes the connection; off makes it work.
                        Every process sees it at the next creation.
`

// sandboxCmd switches the sandbox simulators' faults in the state they
// share (Redis).
func sandboxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "fault" {
		fmt.Fprint(stderr, sandboxUsage)
		if len(args) == 0 {
			return errors.New("sandbox: no subcommand given")
		}
		return fmt.Errorf("sandbox: unknown subcommand %q", args[0])
	}
	fs := subFlags("sandbox", "fault", "METHOD CHANNEL restricted|hang|reset|off", args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	path, fault, err := faultArgs(pos)
	if err != nil {
		return fmt.Errorf("sandbox fault: %w", err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if err := sandbox.SetFault(ctx, provider.NewRedisState(rdb), path, fault); err != nil {
		return fmt.Errorf("sandbox fault: %w", err)
	}
	fmt.Fprintf(stdout, "sandbox simulator %s: %s\n", path, fault)
	return nil
}

// faultArgs checks METHOD CHANNEL FAULT: a method with a simulator, a
// channel id of the channels' form, a known fault.
func faultArgs(pos []string) (string, sandbox.Fault, error) {
	if len(pos) != 3 {
		return "", "", errors.New("want METHOD CHANNEL restricted|hang|reset|off")
	}
	m := schema.Method(pos[0])
	if _, ok := providerSimulators()[m]; !ok {
		return "", "", fmt.Errorf("%q is no method with a sandbox simulator", pos[0])
	}
	if err := channel.CheckID(pos[1]); err != nil {
		return "", "", err
	}
	f, err := sandbox.ParseFault(pos[2])
	if err != nil {
		return "", "", err
	}
	return sandbox.SimPath(m, pos[1]), f, nil
}
