package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/bdpspb"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/provider/cryptopsp"
	"github.com/paygate/gateway/provider/fiatpsp"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/provider/walletb"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
	bdcardsim "github.com/paygate/gateway/web/sandbox/bdcard"
	bdpspbsim "github.com/paygate/gateway/web/sandbox/bdpspb"
	cryptohostsim "github.com/paygate/gateway/web/sandbox/cryptohost"
	cryptopspsim "github.com/paygate/gateway/web/sandbox/cryptopsp"
	fiatpspsim "github.com/paygate/gateway/web/sandbox/fiatpsp"
	"github.com/paygate/gateway/web/sandbox/simkit"
	walletasim "github.com/paygate/gateway/web/sandbox/walleta"
	walletbsim "github.com/paygate/gateway/web/sandbox/walletb"
)

// providerFamilies are the provider families the process serves, each
// registered by its own package through the one typed contract
// (provider.Family); bdcard's protocol serves two stores.
func providerFamilies() map[schema.Method]provider.Family {
	out := map[schema.Method]provider.Family{}
	for _, f := range []provider.Family{
		walleta.Registration(), walletb.Registration(), cryptohost.Registration(), cryptopsp.Registration(),
		bdcard.Registration(), bdcard.PSPARegistration(), bdpspb.Registration(), fiatpsp.Registration(),
	} {
		out[f.Method] = f
	}
	return out
}

// providerSimulators are the sandbox's simulated providers, one per family
// (providerFamilies), each made for the family's sandbox adapter.
func providerSimulators() map[schema.Method]sandbox.Maker {
	return map[schema.Method]sandbox.Maker{
		schema.MethodWalletA:    sandbox.Make(walletasim.SandboxSimConfig, walletasim.NewSimulator),
		schema.MethodWalletB:    sandbox.Make(walletbsim.SandboxSimConfig, walletbsim.NewSimulator),
		schema.MethodCryptohost: sandbox.Make(cryptohostsim.SandboxSimConfig, cryptohostsim.NewSimulator),
		schema.MethodCryptoPSP:  sandbox.Make(cryptopspsim.SandboxSimConfig, cryptopspsim.NewSimulator),
		schema.MethodBDCard:     sandbox.Make(bdcardsim.SandboxSimConfig, bdcardsim.NewSimulator),
		schema.MethodBDPSPA:     sandbox.Make(pspaSimConfig, bdcardsim.NewSimulator),
		schema.MethodBDPSPB:     sandbox.Make(bdpspbsim.SandboxSimConfig, bdpspbsim.NewSimulator),
		schema.MethodFiatPSP:    sandbox.Make(fiatpspsim.SandboxSimConfig, fiatpspsim.NewSimulator),
	}
}

// pspaSimConfig is the bdpsp_a store's simulator: bdcard's protocol.
func pspaSimConfig(base string) bdcardsim.SimConfig {
	return bdcardsim.SandboxSimConfigFamily(bdcard.FamilyPSPA, base)
}

// providerSet is what the process wired: the registry the command side
// picks adapters from, the simulators, and the live methods configured.
type providerSet struct {
	registry   *provider.Registry
	simulators command.Simulators
	mount      func(r fiber.Router)
	live       []schema.Method
}

// decodeProviders reads the live providers' configurations (platform.Config
// Providers: the file, then the GATEWAY_PROVIDER_<METHOD> variables), each
// channel's through its family (channelConfigs); at most max channels per
// method. Every error is listed, not just the first.
func decodeProviders(raw map[schema.Method]json.RawMessage, max int) (map[schema.Method][]channelBuild, error) {
	families := providerFamilies()
	out := map[schema.Method][]channelBuild{}
	var errs []error
	for _, m := range slices.Sorted(maps.Keys(raw)) {
		f, ok := families[m]
		if !ok {
			errs = append(errs, fmt.Errorf("providers: %q is not a provider family (one of %v)", m, familyNames(families)))
			continue
		}
		ids, confs, err := channelConfigs(m, raw[m], max)
		if err != nil {
			errs = append(errs, err)
		}
		for i, id := range ids {
			b, err := f.Decode(confs[i])
			if err != nil {
				errs = append(errs, fmt.Errorf("provider %s%s: %w", m, channelSuffix(id), err))
				continue
			}
			out[m] = append(out[m], channelBuild{id: id, build: b})
		}
	}
	return out, errors.Join(errs...)
}

// channelSuffix names a channel other than the default in an error.
func channelSuffix(id string) string {
	if id == channel.Default {
		return ""
	}
	return " channel " + id
}

func familyNames(families map[schema.Method]provider.Family) []string {
	var out []string
	for _, m := range schema.AllMethods() {
		if _, ok := families[m]; ok {
			out = append(out, string(m))
		}
	}
	return out
}

// wireProviders builds every adapter and simulator: the sandbox's channels
// (cfg.SandboxChannels) for every family, the live channels cfg configures.
// Every error is listed.
func wireProviders(cfg platform.Config, rdb redis.UniversalClient, m *provider.Metrics, log *slog.Logger) (*providerSet, error) {
	builds, err := decodeProviders(cfg.Providers(), cfg.ChannelsMax)
	if err != nil {
		return nil, err
	}
	w := &providerWiring{cfg: cfg, channels: channel.NewStore(rdb), metrics: m, log: log, state: provider.NewRedisState(rdb),
		// A provider's notification sender takes the answer as it is; it
		// never follows a redirect (a browser return answers with one).
		notifier: &provider.Notifier{Client: &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, Log: log},
		set: &providerSet{simulators: command.Simulators{}}}
	own := []provider.Channel{{ID: channel.Default, Adapter: provider.Own{}}}
	// usdt_direct is ours in both modes: a live order needs a live network
	// configured (`gateway usdt config`), which the create checks.
	sandbox := map[schema.Method][]provider.Channel{schema.MethodSelect: own, schema.MethodUSDTDirect: own}
	live := map[schema.Method][]provider.Channel{schema.MethodSelect: own, schema.MethodUSDTDirect: own}
	var errs []error
	families, makers := providerFamilies(), providerSimulators()
	for _, method := range schema.AllMethods() {
		f, ok := families[method]
		if !ok {
			continue
		}
		chs, err := w.sandboxChannels(f, makers[method])
		errs = append(errs, err)
		sandbox[method] = chs
		if bs, ok := builds[method]; ok {
			chs, err := w.liveChannels(method, bs)
			errs = append(errs, err)
			live[method] = chs
			w.set.live = append(w.set.live, method)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if w.set.registry, err = provider.NewChannelRegistry(sandbox, live); err != nil {
		return nil, err
	}
	w.set.mount = func(r fiber.Router) {
		for _, mount := range w.sims {
			mount(r)
		}
	}
	return w.set, nil
}

// providerWiring is what wireProviders shares between its steps.
type providerWiring struct {
	cfg      platform.Config
	channels *channel.Store
	metrics  *provider.Metrics
	log      *slog.Logger
	state    provider.State
	notifier *provider.Notifier
	set      *providerSet
	sims     []func(fiber.Router)
}

// sandboxChannels makes family f's sandbox channels: per id, the sandbox
// adapter and its simulator at PublicURL + sandbox.SimPath, mounted under
// /sandbox/provider (the default channel where it always was).
func (w *providerWiring) sandboxChannels(f provider.Family, makeSim sandbox.Maker) ([]provider.Channel, error) {
	method := f.Method
	if makeSim == nil {
		return nil, fmt.Errorf("%s sandbox: no simulator", method)
	}
	var out []provider.Channel
	var errs []error
	for _, id := range w.cfg.SandboxChannels {
		base := w.cfg.PublicURL + sandbox.SimPath(method, id)
		a, err := f.Sandbox(base, provider.NewCaller(callerName(method, true, id), provider.CallerConfig{Timeout: 5 * time.Second}, nil, w.metrics, w.log))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s sandbox channel %s: %w", method, id, err))
			continue
		}
		out = append(out, provider.Channel{ID: id, Adapter: a})
		ref := channel.Ref{Sandbox: true, Method: method, ID: id}
		sim := makeSim(base, w.costOf(ref), w.state, w.notifier, w.log)
		w.set.simulators[ref] = sim
		prefix := strings.TrimPrefix(sandbox.SimPath(method, id), simMount)
		w.sims = append(w.sims, func(r fiber.Router) { sim.Register(r.Group(prefix)) })
	}
	return out, errors.Join(errs...)
}

// costOf is sandbox channel ref's configured cost as it is when a payment
// settles, which its simulator charges: the schedule the order was priced
// with at routing, so the statement reconciles.
func (w *providerWiring) costOf(ref channel.Ref) simkit.Cost {
	return func(ctx context.Context) (schema.FeeSchedule, error) {
		s, err := w.channels.Settings(ctx, ref)
		return s.Cost, err
	}
}

// simMount is where the process mounts the simulators (web/api).
const simMount = "/sandbox/provider"

// liveChannels builds method's live channels, each with a Caller of its
// own name (callerName) so its metrics and logs tell the accounts apart.
func (w *providerWiring) liveChannels(method schema.Method, bs []channelBuild) ([]provider.Channel, error) {
	var out []provider.Channel
	var errs []error
	for _, b := range bs {
		a, err := b.build(func(cc provider.CallerConfig) *provider.Caller {
			if cc.Timeout == 0 {
				cc.Timeout = w.cfg.ProviderTimeout
			}
			return provider.NewCaller(callerName(method, false, b.id), cc, nil, w.metrics, w.log)
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("provider %s%s: %w", method, channelSuffix(b.id), err))
			continue
		}
		out = append(out, provider.Channel{ID: b.id, Adapter: a})
	}
	return out, errors.Join(errs...)
}
