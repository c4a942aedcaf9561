package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// demoFile is make run's demo-merchant.json, kept true while the gateway
// serves: `demo seed` writes it before the gateway starts, but a key or
// webhook secret rotated from the merchant console during the run would
// otherwise leave a stale key in the file that scripts sign with.
type demoFile struct{ path string }

// Bind reads --demo-file (GATEWAY_DEMO_FILE, set by scripts/run.sh only).
func (d *demoFile) Bind(fs *flag.FlagSet) {
	fs.StringVar(&d.path, "demo-file", os.Getenv("GATEWAY_DEMO_FILE"),
		"a demo merchant's printout (make run's .data/run/demo-merchant.json) to keep current with its account (GATEWAY_DEMO_FILE)")
}

// Validate accepts any path: a missing file is the demo's own business.
func (d *demoFile) Validate() error { return nil }

// demoFileEvery is how soon a rotation reaches the file: the time a person
// takes to go from the console back to a terminal.
const demoFileEvery = 2 * time.Second

// keep rewrites the file from the account as Redis has it until ctx ends.
func (d demoFile) keep(accounts *merchant.Store, log *slog.Logger) func(context.Context) {
	return func(ctx context.Context) {
		platform.Every(ctx, demoFileEvery, func(ctx context.Context) {
			if err := refreshDemoMerchant(ctx, d.path, accounts); err != nil && ctx.Err() == nil {
				log.Warn("demo merchant file not refreshed", "file", d.path, "err", err)
			}
		})
	}
}

// refreshDemoMerchant writes file again from its merchant's account when
// they differ; a file that names no account Redis knows is left alone
// (`demo seed` replaces it at the next run).
func refreshDemoMerchant(ctx context.Context, file string, accounts *merchant.Store) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	var kept struct {
		AppID string `json:"appid"`
	}
	if err := json.Unmarshal(raw, &kept); err != nil || kept.AppID == "" {
		return fmt.Errorf("%s names no appid", file)
	}
	a, err := accounts.Get(ctx, kept.AppID)
	if errors.Is(err, merchant.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return writeDemoMerchant(file, raw, a)
}

// writeDemoMerchant writes a's printout (as `merchant create --json` prints
// it) to file unless old already is that printout.
func writeDemoMerchant(file string, old []byte, a *merchant.Account) error {
	var buf bytes.Buffer
	if err := (output{w: &buf, json: true}).withWebhookSecret(a, allCredentials); err != nil {
		return err
	}
	if bytes.Equal(buf.Bytes(), old) {
		return nil
	}
	return writeFileAtomic(file, buf.Bytes())
}
