package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/bdcard"
	"github.com/paygate/gateway/provider/bdpspb"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/provider/cryptopsp"
	"github.com/paygate/gateway/provider/fiatpsp"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/provider/walletb"
	"github.com/paygate/gateway/schema"
)

// simulator is a family's sandbox provider as the process mounts it.
type simulator interface {
	Register(r fiber.Router)
	Settle(ctx context.Context, ref string, paid bool) error
}

// family wires one method's provider: its live adapter from configuration,
// its sandbox adapter pointed at its simulator, and the simulator.
type family struct {
	live    func(raw json.RawMessage, caller func(provider.CallerConfig) *provider.Caller) (provider.Adapter, error)
	sandbox func(simBase string, c *provider.Caller) (provider.Adapter, error)
	sim     func(simBase string, st provider.State, n *provider.Notifier, log *slog.Logger) simulator
}

// families are the provider families by method (bdcard and bdpsp_a speak
// one protocol with two configurations).
var families = map[schema.Method]family{
	schema.MethodWalletA:    std(walleta.New, walleta.SandboxConfig, walleta.NewSimulator, walleta.SandboxSimConfig),
	schema.MethodWalletB:    std(walletb.New, walletb.SandboxConfig, walletb.NewSimulator, walletb.SandboxSimConfig),
	schema.MethodCryptohost: std(cryptohost.New, cryptohost.SandboxConfig, cryptohost.NewSimulator, cryptohost.SandboxSimConfig),
	schema.MethodCryptoPSP:  std(cryptopsp.New, cryptopsp.SandboxConfig, cryptopsp.NewSimulator, cryptopsp.SandboxSimConfig),
	schema.MethodBDCard:     bdStore(bdcard.FamilyCard),
	schema.MethodBDPSPA:     bdStore(bdcard.FamilyPSPA),
	schema.MethodBDPSPB:     std(bdpspb.New, bdpspb.SandboxConfig, bdpspb.NewSimulator, bdpspb.SandboxSimConfig),
	schema.MethodFiatPSP:    std(fiatpsp.New, fiatpsp.SandboxConfig, fiatpsp.NewSimulator, fiatpsp.SandboxSimConfig),
}

// bdStore is one of the two stores that speak the bdcard protocol: the
// family name is the method, whatever the configuration says.
func bdStore(name string) family {
	return std(func(c bdcard.Config, caller *provider.Caller) (*bdcard.Adapter, error) {
		c.Family = name
		return bdcard.New(c, caller)
	}, func(base string) bdcard.Config { return bdcard.SandboxConfigFamily(name, base) },
		bdcard.NewSimulator, func(base string) bdcard.SimConfig { return bdcard.SandboxSimConfigFamily(name, base) })
}

// std wires a family package of the usual shape: New(Config, Caller), a
// sandbox Config pointed at the simulator, and the simulator with its
// sandbox configuration. A live configuration is the family's Config as
// JSON; New applies its defaults and Validate.
func std[C any, A provider.Adapter, SC any, S simulator](
	newAdapter func(C, *provider.Caller) (A, error), sandboxConfig func(string) C,
	newSim func(SC, provider.State, *provider.Notifier, *slog.Logger) S, simConfig func(string) SC,
) family {
	return family{
		live: func(raw json.RawMessage, caller func(provider.CallerConfig) *provider.Caller) (provider.Adapter, error) {
			var cfg C
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cfg); err != nil {
				return nil, fmt.Errorf("configuration: %w", err)
			}
			// Every family's Config carries its call bounds as Caller.
			cc, _ := reflect.ValueOf(cfg).FieldByName("Caller").Interface().(provider.CallerConfig)
			return newAdapter(cfg, caller(cc))
		},
		sandbox: func(base string, c *provider.Caller) (provider.Adapter, error) {
			return newAdapter(sandboxConfig(base), c)
		},
		sim: func(base string, st provider.State, n *provider.Notifier, log *slog.Logger) simulator {
			return newSim(simConfig(base), st, n, log)
		},
	}
}

// providerSet is what the process wired: the registry the command side
// picks adapters from, the simulators, and the live methods configured.
type providerSet struct {
	registry   *provider.Registry
	simulators command.Simulators
	mount      func(r fiber.Router)
	live       []schema.Method
}

// loadProviderConfig reads the live providers' configuration: the JSON file
// GATEWAY_PROVIDERS_FILE ({"<method>": {...}}), then GATEWAY_PROVIDER_<METHOD>
// variables holding one method's JSON, which win over the file.
func loadProviderConfig(file string) (map[schema.Method]json.RawMessage, error) {
	out := map[schema.Method]json.RawMessage{}
	if file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("providers file: %w", err)
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("providers file %s: %w", file, err)
		}
	}
	for _, m := range schema.AllMethods() {
		if v := os.Getenv("GATEWAY_PROVIDER_" + strings.ToUpper(string(m))); v != "" {
			out[m] = json.RawMessage(v)
		}
	}
	var errs []error
	for m := range out {
		if _, ok := families[m]; !ok {
			errs = append(errs, fmt.Errorf("providers: %q is not a provider family (one of %v)", m, familyNames()))
		}
	}
	return out, errors.Join(errs...)
}

func familyNames() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		if _, ok := families[m]; ok {
			out = append(out, string(m))
		}
	}
	return out
}

// wireProviders builds every adapter and simulator. Every configuration
// error is listed, not just the first.
func wireProviders(cfg map[schema.Method]json.RawMessage, publicURL string, timeout time.Duration, rdb redis.UniversalClient, m *provider.Metrics, log *slog.Logger) (*providerSet, error) {
	simBase := publicURL + "/sandbox/provider"
	state := &redisState{rdb: rdb}
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
	for _, method := range schema.AllMethods() {
		f, ok := families[method]
		if !ok {
			continue
		}
		base := simBase + "/" + string(method)
		a, err := f.sandbox(base, provider.NewCaller(string(method)+"_sandbox", provider.CallerConfig{Timeout: 5 * time.Second}, nil, m, log))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s sandbox: %w", method, err))
			continue
		}
		sandbox[method] = a
		sim := f.sim(base, state, notifier, log)
		set.simulators[method] = sim
		sims = append(sims, func(r fiber.Router) { sim.Register(r.Group("/" + string(method))) })
		if raw, ok := cfg[method]; ok {
			a, err := f.live(raw, func(cc provider.CallerConfig) *provider.Caller {
				if cc.Timeout == 0 {
					cc.Timeout = timeout
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

// redisState keeps the simulators' sessions in Redis, so that any gateway
// process answers for a payment another one created.
type redisState struct{ rdb redis.UniversalClient }

func (s *redisState) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.rdb.Set(ctx, schema.SimKeyPrefix+key, value, ttl).Err()
}

func (s *redisState) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := s.rdb.Get(ctx, schema.SimKeyPrefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, provider.ErrNotFound
	}
	return v, err
}
