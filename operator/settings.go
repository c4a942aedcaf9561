package operator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/usdt"
)

// Settings are SPEC.md's Advanced Settings: the FX rates every create
// converts with, and the USDT networks with their review modes. The console
// and the CLI change them here, with the same parsing and checks.
type Settings struct {
	cfg   SettingsConfig
	rates *fx.Store
	nets  *usdt.Store
	log   Auditor
	now   func() time.Time
}

// SettingsConfig bounds the changes Settings makes without a confirmation.
type SettingsConfig struct {
	// FXMaxDeviation is how far, in percent of the pair's current rate, a
	// new rate may move it (either way) without the person confirming:
	// GATEWAY_FX_MAX_DEVIATION.
	FXMaxDeviation int
}

// SettingsDefaults: a rate may move 10 % unconfirmed.
func SettingsDefaults() SettingsConfig { return SettingsConfig{FXMaxDeviation: 10} }

// Validate refuses a deviation below 1 % (every correction would need a
// confirmation) or above fx.MaxDeviationPercent (none would).
func (c SettingsConfig) Validate() error {
	if c.FXMaxDeviation < 1 || c.FXMaxDeviation > fx.MaxDeviationPercent {
		return fmt.Errorf("fx-max-deviation %d: want a percentage from 1 to %d", c.FXMaxDeviation, fx.MaxDeviationPercent)
	}
	return nil
}

// NewSettings wraps the stores the processes watch (each picks a change up
// within a second).
func NewSettings(cfg SettingsConfig, rates *fx.Store, nets *usdt.Store, log Auditor) (*Settings, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Settings{cfg: cfg, rates: rates, nets: nets, log: log, now: time.Now}, nil
}

// ParseRate reads a rate change as every door gives it ("usd", "BDT",
// "121.50"): the checks that need no state, which the CLI makes before it
// connects anywhere.
func ParseRate(base, quote, rate string) (fx.Pair, fx.Rate, error) {
	p, ok := fx.ParsePair(strings.ToUpper(strings.TrimSpace(base)) + ":" + strings.ToUpper(strings.TrimSpace(quote)))
	if !ok {
		return fx.Pair{}, 0, invalid(fmt.Sprintf("%s %s is not a pair of currency codes", base, quote))
	}
	r, err := fx.ParseRate(strings.TrimSpace(rate))
	if err != nil {
		return fx.Pair{}, 0, invalid(err.Error())
	}
	return p, r, nil
}

// SetRate makes one base cost rate quote from now on ("USDT", "CNY",
// "7.25"), recorded in the rate history as set by actor and in the audit log.
// A rate more than FXMaxDeviation from the pair's current one is refused
// with a conflict wrapping *fx.DeviationError unless confirmed: every order
// of the pair would charge by it. A confirmed one is flagged in the audit
// entry ("deviation_confirmed", with the old_rate). The check reads
// the current rate, then sets: two people setting one pair at once are each
// checked against the rate they saw.
func (s *Settings) SetRate(ctx context.Context, actor access.Actor, base, quote, rate string, confirmed bool) (fx.Entry, error) {
	if err := allow(actor, access.PermFXWrite); err != nil {
		return fx.Entry{}, err
	}
	p, r, err := ParseRate(base, quote, rate)
	if err != nil {
		return fx.Entry{}, err
	}
	_, cur, _, err := s.rates.Get(ctx, p)
	if err != nil {
		return fx.Entry{}, err
	}
	beyond := fx.CheckDeviation(p, cur, r, s.cfg.FXMaxDeviation)
	if beyond != nil && !confirmed {
		return fx.Entry{}, &platform.Error{Kind: platform.KindConflict, Msg: beyond.Error(), Err: beyond}
	}
	d := map[string]string{"currency": p.Quote}
	var de *fx.DeviationError
	if errors.As(beyond, &de) {
		d["deviation_confirmed"] = de.Direction() + " " + de.Percent() + "%"
		d["old_rate"] = de.Current.String()
	}
	ae, err := checked(entry(s.now(), actor, "fx.set", "fx:"+p.Base+"/"+p.Quote, "", d))
	if err != nil {
		return fx.Entry{}, err
	}
	e, err := s.rates.Set(ctx, p, r, By(actor))
	if err != nil {
		return e, err
	}
	ae.Details["rate"] = e.Rate // the rate as stored: a number the store wrote
	return e, record(ctx, s.log, ae)
}

// PairHistory is the last n rates of base/quote, newest first, for the
// person deciding on a change of it (read from the history's newest
// thousand entries).
func (s *Settings) PairHistory(ctx context.Context, actor access.Actor, base, quote string, n int) ([]fx.Entry, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, err
	}
	p, ok := fx.ParsePair(strings.ToUpper(strings.TrimSpace(base)) + ":" + strings.ToUpper(strings.TrimSpace(quote)))
	if !ok {
		return nil, nil
	}
	all, err := s.rates.History(ctx, 1000)
	if err != nil {
		return nil, err
	}
	var out []fx.Entry
	for _, e := range all {
		if e.Pair == p && len(out) < n {
			out = append(out, e)
		}
	}
	return out, nil
}

// Rates are the current rates and the last n set, newest first: who set
// each and when.
func (s *Settings) Rates(ctx context.Context, actor access.Actor, n int64) (current, history []fx.Entry, err error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, nil, err
	}
	if _, current, err = s.rates.Current(ctx); err != nil {
		return nil, nil, err
	}
	history, err = s.rates.History(ctx, n)
	return current, history, err
}

// NetworkChange is a change of one network: only the fields set change it,
// the rest keep their value (or take the chain's default for a new one).
type NetworkChange struct {
	Name            string
	Sandbox         bool
	Addresses       *[]string
	Contract        *string
	Decimals        *int
	Confirmations   *int64
	Mode            *string
	ExchangeNetwork *string
}

// Networks lists the networks as configured.
func (s *Settings) Networks(ctx context.Context, actor access.Actor) ([]usdt.Network, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, err
	}
	return s.nets.List(ctx)
}

// SetNetwork applies c to the network as stored (or a new one) after
// usdt.Check's validation, and answers the network as stored.
func (s *Settings) SetNetwork(ctx context.Context, actor access.Actor, c NetworkChange) (usdt.Network, error) {
	if err := allow(actor, access.PermNetworksWrite); err != nil {
		return usdt.Network{}, err
	}
	nets, err := s.nets.List(ctx)
	if err != nil {
		return usdt.Network{}, err
	}
	name := strings.ToUpper(strings.TrimSpace(c.Name))
	n := usdt.Network{Name: name, Sandbox: c.Sandbox}
	for _, have := range nets {
		if have.Name == name && have.Sandbox == c.Sandbox {
			n = have
		}
	}
	old := n.Mode
	c.apply(&n)
	checked, err := usdt.Check(n)
	if err != nil {
		return usdt.Network{}, invalid(err.Error())
	}
	d := map[string]string{"network": checked.Name, "mode": string(checked.Mode), "count": strconv.Itoa(len(checked.Addresses)),
		"confirmations": strconv.FormatInt(checked.Confirmations, 10), "realm": sandboxWord(checked.Sandbox)}
	if old != "" && old != checked.Mode {
		d["old_mode"] = string(old)
	}
	e := entry(s.now(), actor, "usdt.network_set", "network:"+checked.Key(), "", d)
	if err := e.Check(); err != nil {
		return usdt.Network{}, err
	}
	if err := s.nets.Set(ctx, checked); err != nil {
		return usdt.Network{}, err
	}
	return checked, record(ctx, s.log, e)
}

func (c NetworkChange) apply(n *usdt.Network) {
	if c.Addresses != nil {
		n.Addresses = *c.Addresses
	}
	if c.Contract != nil {
		n.Contract = *c.Contract
	}
	if c.Decimals != nil {
		n.Decimals = *c.Decimals
	}
	if c.Confirmations != nil {
		n.Confirmations = *c.Confirmations
	}
	if c.Mode != nil {
		n.Mode = usdt.Mode(*c.Mode)
	}
	if c.ExchangeNetwork != nil {
		n.ExchangeNetwork = *c.ExchangeNetwork
	}
}

// RemoveNetwork stops offering a network (live, or the sandbox's).
func (s *Settings) RemoveNetwork(ctx context.Context, actor access.Actor, name string, sandbox bool) error {
	if err := allow(actor, access.PermNetworksWrite); err != nil {
		return err
	}
	name = strings.ToUpper(strings.TrimSpace(name))
	n := usdt.Network{Name: name, Sandbox: sandbox}
	e, err := checked(entry(s.now(), actor, "usdt.network_remove", "network:"+n.Key(), "",
		map[string]string{"network": name, "realm": sandboxWord(sandbox)}))
	if err != nil {
		return err
	}
	if err := s.nets.Remove(ctx, name, sandbox); err != nil {
		return err
	}
	return record(ctx, s.log, e)
}

func sandboxWord(sandbox bool) string {
	if sandbox {
		return "sandbox"
	}
	return "live"
}
