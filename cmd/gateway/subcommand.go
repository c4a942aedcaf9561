package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// subcommand picks the subcommand args[0] of cmd among synopses (each
// subcommand's arguments, for its own --help) and gives its flag set over
// args[1:]. Help asked for prints usage to stdout (flag.ErrHelp: run
// exits 0); none or an unknown one prints usage to stderr and is an error
// naming what was wrong; every command with subcommands starts this way.
func subcommand(cmd, usage string, synopses map[string]string, args []string, stdout, stderr io.Writer) (string, *flag.FlagSet, error) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return "", nil, errors.New(cmd + ": no subcommand given")
	}
	sub := args[0]
	if isHelp(sub) {
		fmt.Fprint(stdout, usage)
		return "", nil, flag.ErrHelp
	}
	synopsis, ok := synopses[sub]
	if !ok {
		fmt.Fprint(stderr, usage)
		return "", nil, fmt.Errorf("%s: unknown subcommand %q", cmd, sub)
	}
	return sub, subFlags(cmd, sub, synopsis, args[1:], stdout, stderr), nil
}
