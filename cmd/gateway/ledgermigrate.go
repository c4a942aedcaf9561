package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/ledger"
	"github.com/paygate/gateway/merchant"
)

const ledgerMigrateUsage = `usage: gateway ledger migrate [--redis-url URL]

  migrate   carry every merchant's balances of before the journal (the
            balance hashes) into it as opening entries, opening:APPID:CUR,
            each once for ever; run again it posts nothing. gateway serve
            runs it too when it has the command role.
`

// ledgerMigrateCmd is gateway ledger migrate.
func ledgerMigrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "migrate" {
		fmt.Fprint(stderr, ledgerMigrateUsage)
		return errors.New("ledger: want the subcommand migrate")
	}
	fs := subFlags("ledger", "migrate", "[--redis-url URL]", args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("ledger migrate: takes no arguments\n%s", ledgerMigrateUsage)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	merchants, posted, err := openBalances(ctx, rdb, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ledger migrate: %d merchants, %d opening entries posted now\n", merchants, posted)
	return nil
}

// openBalances posts every merchant's opening entries (journal.OpenBalances),
// idempotently: the command role runs it before serving, so a balance kept
// before the journal is spendable from the first request.
func openBalances(ctx context.Context, rdb redis.UniversalClient, j *journal.Journal) (merchants, posted int, err error) {
	if j == nil {
		if j, err = journal.New(journal.Config{}, rdb, nil, nil); err != nil {
			return 0, 0, err
		}
	}
	// From now on the journal moves balances: a ledger process skips the
	// balance movements that ended before, which the opening entries carry.
	if _, err := ledger.JournalSince(ctx, rdb, time.Now()); err != nil {
		return 0, 0, err
	}
	all, err := merchant.NewStore(rdb).List(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("open balances: %w", err)
	}
	for _, a := range all {
		n, err := j.OpenBalances(ctx, a.AppID)
		if err != nil {
			return len(all), posted, fmt.Errorf("open balances: %w", err)
		}
		posted += n
	}
	return len(all), posted, nil
}

// openBalancesStep is openBalances as a step before serving.
func openBalancesStep(rdb redis.UniversalClient, j *journal.Journal, log *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		merchants, posted, err := openBalances(ctx, rdb, j)
		if err != nil {
			return err
		}
		if posted > 0 {
			log.Info("opening balances carried into the journal", "merchants", merchants, "entries", posted)
		}
		return nil
	}
}
