package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

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
// through its family. Every error is listed, not just the first.
func decodeProviders(raw map[schema.Method]json.RawMessage) (map[schema.Method]provider.Build, error) {
	families := providerFamilies()
	out := map[schema.Method]provider.Build{}
	var errs []error
	for _, m := range slices.Sorted(maps.Keys(raw)) {
		f, ok := families[m]
		if !ok {
			errs = append(errs, fmt.Errorf("providers: %q is not a provider family (one of %v)", m, familyNames(families)))
			continue
		}
		b, err := f.Decode(raw[m])
		if err != nil {
			errs = append(errs, fmt.Errorf("provider %s: %w", m, err))
			continue
		}
		out[m] = b
	}
	return out, errors.Join(errs...)
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

// wireProviders builds every adapter and simulator: the sandbox's for every
// family, the live ones cfg configures. Every error is listed.
func wireProviders(cfg platform.Config, rdb redis.UniversalClient, m *provider.Metrics, log *slog.Logger) (*providerSet, error) {
	builds, err := decodeProviders(cfg.Providers())
	if err != nil {
		return nil, err
	}
	simBase := cfg.PublicURL + "/sandbox/provider"
	state := provider.NewRedisState(rdb)
	// A provider's notification sender takes the answer as it is; it never
	// follows a redirect (a browser return answers with one).
	notifier := &provider.Notifier{Client: &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, Log: log}
	sandbox := map[schema.Method]provider.Adapter{schema.MethodSelect: provider.Own{}, schema.MethodUSDTDirect: provider.Own{}}
	// usdt_direct is ours in both modes: a live order needs a live network
	// configured (`gateway usdt config`), which the create checks.
	live := map[schema.Method]provider.Adapter{schema.MethodSelect: provider.Own{}, schema.MethodUSDTDirect: provider.Own{}}
	set := &providerSet{simulators: command.Simulators{}}
	var sims []func(fiber.Router)
	var errs []error
	families, makers := providerFamilies(), providerSimulators()
	for _, method := range schema.AllMethods() {
		f, ok := families[method]
		if !ok {
			continue
		}
		makeSim, ok := makers[method]
		if !ok {
			errs = append(errs, fmt.Errorf("%s sandbox: no simulator", method))
			continue
		}
		base := simBase + "/" + string(method)
		a, err := f.Sandbox(base, provider.NewCaller(string(method)+"_sandbox", provider.CallerConfig{Timeout: 5 * time.Second}, nil, m, log))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s sandbox: %w", method, err))
			continue
		}
		sandbox[method] = a
		sim := makeSim(base, state, notifier, log)
		set.simulators[method] = sim
		sims = append(sims, func(r fiber.Router) { sim.Register(r.Group("/" + string(method))) })
		if build, ok := builds[method]; ok {
			a, err := build(func(cc provider.CallerConfig) *provider.Caller {
				if cc.Timeout == 0 {
					cc.Timeout = cfg.ProviderTimeout
				}
				return provider.NewCaller(string(method), cc, nil, m, log)
			})
			if err != nil {
				errs = append(errs, fmt.Errorf("provider %s: %w", method, err))
				continue
			}
			live[method] = a
			set.live = append(set.live, method)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	set.registry = provider.NewRegistry(sandbox, live)
	set.mount = func(r fiber.Router) {
		for _, mount := range sims {
			mount(r)
		}
	}
	return set, nil
}
