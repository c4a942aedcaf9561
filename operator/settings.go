package operator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/usdt"
)

// Settings are SPEC.md's Advanced Settings: the FX rates every create
// converts with, and the USDT networks with their review modes. The console
// and the CLI change them here, with the same parsing and checks.
type Settings struct {
	rates *fx.Store
	nets  *usdt.Store
	log   Auditor
	now   func() time.Time
}

// NewSettings wraps the stores the processes watch (each picks a change up
// within a second).
func NewSettings(rates *fx.Store, nets *usdt.Store, log Auditor) *Settings {
	return &Settings{rates: rates, nets: nets, log: log, now: time.Now}
}

// SetRate makes one base cost rate quote from now on ("USDT", "CNY",
// "7.25"), recorded in the rate history as set by actor and in the audit log.
func (s *Settings) SetRate(ctx context.Context, actor access.Actor, base, quote, rate string) (fx.Entry, error) {
	if err := allow(actor, access.PermFXWrite); err != nil {
		return fx.Entry{}, err
	}
	p, ok := fx.ParsePair(strings.ToUpper(strings.TrimSpace(base)) + ":" + strings.ToUpper(strings.TrimSpace(quote)))
	if !ok {
		return fx.Entry{}, invalid(fmt.Sprintf("%s %s is not a pair of currency codes", base, quote))
	}
	r, err := fx.ParseRate(strings.TrimSpace(rate))
	if err != nil {
		return fx.Entry{}, invalid(err.Error())
	}
	ae, err := checked(entry(s.now(), actor, "fx.set", "fx:"+p.Base+"/"+p.Quote, "", map[string]string{"currency": p.Quote}))
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
