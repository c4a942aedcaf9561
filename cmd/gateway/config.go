package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
)

// envConfig is the process configuration as the environment gives it, for
// the CLI commands that must read it as `gateway serve` does (TTLs,
// retention, providers, method limits). A bad GATEWAY_* value is an error
// here as it is for serve.
func envConfig() (platform.Config, error) {
	cfg := platform.Defaults()
	cfg.Bind(flag.NewFlagSet("env", flag.ContinueOnError)) // applies GATEWAY_* values; nothing is parsed
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

// settingsConfig is the operator's settings' configuration from cfg.
func settingsConfig(cfg platform.Config) operator.SettingsConfig {
	return operator.SettingsConfig{FXMaxDeviation: cfg.FXMaxDeviation}
}

// moneyConfig is the operator's money tools' configuration from cfg.
func moneyConfig(cfg platform.Config) operator.MoneyConfig {
	return operator.MoneyConfig{ApprovalAbove: cfg.AdjustApprovalAbove}
}

// envDestinations are the webhook address rules of GATEWAY_WEBHOOK_ALLOW_PRIVATE
// (and the other GATEWAY_WEBHOOK_* settings, checked): a CLI command that
// stores a callback URL judges it as serve's consoles do.
func envDestinations() (*dispatcher.Destinations, error) {
	wcfg, err := envWebhookConfig()
	if err != nil {
		return nil, err
	}
	return dispatcher.NewDestinations(wcfg.AllowPrivate), nil
}

// envWebhookConfig is the dispatcher's configuration as this machine's
// GATEWAY_WEBHOOK_* variables set it, for the CLI.
func envWebhookConfig() (dispatcher.Config, error) {
	wcfg := dispatcher.Defaults()
	wcfg.Bind(flag.NewFlagSet("env", flag.ContinueOnError))
	if err := wcfg.Validate(); err != nil {
		return dispatcher.Config{}, fmt.Errorf("configuration: %w", err)
	}
	return wcfg, nil
}

// serveSettings are the settings serve reads whose parsers belong to the
// packages that use them (the command side's method limits, USDT rates
// and networks; each provider family's configuration). Validate runs them
// all on the bound configuration, so that a start lists every problem with
// the process configuration's own, before it connects to anything.
type serveSettings struct{ cfg *platform.Config }

// Bind binds nothing: the settings are platform.Config's.
func (serveSettings) Bind(*flag.FlagSet) {}

// Validate lists every setting that the wiring would refuse.
func (s serveSettings) Validate() error {
	var errs []error
	if err := settingsConfig(*s.cfg).Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := command.ParseMethodLimits(s.cfg.MethodLimits); err != nil {
		errs = append(errs, err)
	}
	if _, err := epay.ParseTypes(s.cfg.EpayTypes); err != nil {
		errs = append(errs, fmt.Errorf("epay-types: %w", err))
	}
	if _, err := command.ParseUSDTRates(s.cfg.USDTRates); err != nil {
		errs = append(errs, err)
	}
	if _, err := command.ParseUSDTNetworks(s.cfg.USDTNetworks); err != nil {
		errs = append(errs, fmt.Errorf("usdt-networks: %w", err))
	}
	if _, err := command.ParseUSDTNetworks(s.cfg.USDTSandboxNets); err != nil {
		errs = append(errs, fmt.Errorf("usdt-sandbox-networks: %w", err))
	}
	if _, err := decodeProviders(s.cfg.Providers(), s.cfg.ChannelsMax); err != nil {
		errs = append(errs, err)
	}
	if err := liveUSDTConfigs(*s.cfg).Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
