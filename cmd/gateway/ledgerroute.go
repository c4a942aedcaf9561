package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ledgerUsage is every `gateway ledger` subcommand: the operator's money
// tools and the reports, each group parsed by its own command.
var ledgerUsage = ledgerJournalUsage + strings.TrimPrefix(ledgerMoneyUsage, "usage: gateway ledger <subcommand> [--json] [--redis-url URL] [--by NAME] ...\n") +
	strings.TrimPrefix(ledgerIncomeUsage, "usage: gateway ledger <subcommand>\n") +
	strings.TrimPrefix(ledgerMigrateUsage, "usage: gateway ledger migrate [--redis-url URL]\n")

// ledgerCmd hands a `gateway ledger` subcommand to the command that owns it.
func ledgerCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, ledgerUsage)
		return errors.New("ledger: no subcommand given")
	}
	if _, ok := ledgerJournalSynopsis[args[0]]; ok {
		return ledgerJournalCmd(ctx, args, stdout, stderr)
	}
	if _, ok := ledgerIncomeSynopsis[args[0]]; ok {
		return ledgerIncomeCmd(ctx, args, stdout, stderr)
	}
	if args[0] == "migrate" {
		return ledgerMigrateCmd(ctx, args, stdout, stderr)
	}
	if _, ok := ledgerMoneySynopsis[args[0]]; ok {
		return ledgerMoneyCmd(ctx, args, stdout, stderr)
	}
	fmt.Fprint(stderr, ledgerUsage)
	return fmt.Errorf("ledger: unknown subcommand %q", args[0])
}
