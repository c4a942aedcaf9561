package sandbox_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/channel"
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

// family is one provider family as the process wires its sandbox: the
// registration (its sandbox adapter) and its simulator's maker.
type family struct {
	reg   provider.Family
	sim   sandbox.Maker
	money provider.Money
}

func families() map[schema.Method]family {
	pspa := func(base string) bdcardsim.SimConfig {
		return bdcardsim.SandboxSimConfigFamily(bdcard.FamilyPSPA, base)
	}
	bdt := provider.Money{Amount: 1215000, Currency: "BDT"}
	return map[schema.Method]family{
		schema.MethodWalletA:    {walleta.Registration(), sandbox.Make(walletasim.SandboxSimConfig, walletasim.NewSimulator), provider.Money{Amount: 100, Currency: "CNY"}},
		schema.MethodWalletB:    {walletb.Registration(), sandbox.Make(walletbsim.SandboxSimConfig, walletbsim.NewSimulator), provider.Money{Amount: 100, Currency: "CNY"}},
		schema.MethodCryptohost: {cryptohost.Registration(), sandbox.Make(cryptohostsim.SandboxSimConfig, cryptohostsim.NewSimulator), provider.Money{Amount: 100_00, Currency: "USD"}},
		schema.MethodCryptoPSP:  {cryptopsp.Registration(), sandbox.Make(cryptopspsim.SandboxSimConfig, cryptopspsim.NewSimulator), provider.Money{Amount: 100_00, Currency: "USD"}},
		schema.MethodBDCard:     {bdcard.Registration(), sandbox.Make(bdcardsim.SandboxSimConfig, bdcardsim.NewSimulator), bdt},
		schema.MethodBDPSPA:     {bdcard.PSPARegistration(), sandbox.Make(pspa, bdcardsim.NewSimulator), bdt},
		schema.MethodBDPSPB:     {bdpspb.Registration(), sandbox.Make(bdpspbsim.SandboxSimConfig, bdpspbsim.NewSimulator), bdt},
		schema.MethodFiatPSP:    {fiatpsp.Registration(), sandbox.Make(fiatpspsim.SandboxSimConfig, fiatpspsim.NewSimulator), provider.Money{Amount: 150050, Currency: "RUB"}},
	}
}

// rig is one family's sandbox channel "alt" behind a real listener: its
// simulator mounted at SimPath, the state the CLI writes faults into, and
// the sandbox adapter with a short time-out.
type rig struct {
	state   *provider.MemState
	path    string
	adapter provider.Adapter
	base    string
}

func newRig(t *testing.T, m schema.Method, f family) *rig {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + ln.Addr().String()
	r := &rig{state: &provider.MemState{}, path: sandbox.SimPath(m, "alt"), base: origin}
	log := slog.New(slog.DiscardHandler)
	sim := f.sim(origin+r.path, nil, r.state, nil, log)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	sim.Register(app.Group(r.path))
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(2 * time.Second) })
	metrics, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	caller := provider.NewCaller(string(m), provider.CallerConfig{Timeout: 300 * time.Millisecond}, nil, metrics, log)
	r.adapter, err = f.reg.Sandbox(origin+r.path, caller)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) payment(m schema.Method, money provider.Money, id string) provider.Payment {
	return provider.Payment{
		OrderID: id, Method: m, Charge: money, Original: provider.Money{Amount: 100_00, Currency: "USD"},
		Description: "Order 42", CustomerName: "Test Payer", CustomerEmail: "payer@example.com", ClientIP: "203.0.113.7",
		SystemID: "36", PayCurrency: "btc",
		NotifyURL: r.base + "/api/gatewaynotification/" + string(m) + "/n", SuccessURL: r.base + "/payment/" + id,
		FailURL: r.base + "/payment/" + id, CancelURL: r.base + "/payment/" + id,
		ExpiresAt: time.Now().Add(30 * time.Minute),
	}
}

// TestSimulatorFaults: every family's simulator, switched through the
// state as the CLI switches it, answers its create call restricted in the
// provider's own words (which the adapter's refusal carries), hangs past
// the adapter's time-out, or resets the connection; switched off, it
// works again.
func TestSimulatorFaults(t *testing.T) {
	phrases := sandbox.RestrictedPhrases()
	for m, f := range families() {
		t.Run(string(m), func(t *testing.T) {
			r := newRig(t, m, f)
			ctx := t.Context()
			set := func(fault sandbox.Fault) {
				t.Helper()
				if err := sandbox.SetFault(ctx, r.state, r.path, fault); err != nil {
					t.Fatal(err)
				}
			}
			set(sandbox.FaultRestricted)
			_, err := r.adapter.Initialise(ctx, r.payment(m, f.money, "P-restricted"))
			if !errors.Is(err, provider.ErrRefused) || phrases[m] == "" || !strings.Contains(err.Error(), phrases[m]) {
				t.Fatalf("restricted: %v; want ErrRefused saying %q", err, phrases[m])
			}
			set(sandbox.FaultHang)
			_, err = r.adapter.Initialise(ctx, r.payment(m, f.money, "P-hang"))
			if !errors.Is(err, provider.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("hang: %v; want ErrUnavailable after the time-out", err)
			}
			set(sandbox.FaultReset)
			_, err = r.adapter.Initialise(ctx, r.payment(m, f.money, "P-reset"))
			if !errors.Is(err, provider.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "HTTP") {
				t.Fatalf("reset: %v; want ErrUnavailable without an answer or a time-out", err)
			}
			set(sandbox.FaultOff)
			if _, err := r.adapter.Initialise(ctx, r.payment(m, f.money, "P-off")); err != nil {
				t.Fatalf("off: %v", err)
			}
		})
	}
}

// TestFaultsAreKeyedByMountPath: a fault switched for one channel's
// simulator leaves the method's other channel alone, and a public URL with
// a path prefix names the same key.
func TestFaultsAreKeyedByMountPath(t *testing.T) {
	st := &provider.MemState{}
	ctx := t.Context()
	alt := sandbox.SimPath(schema.MethodWalletA, "alt")
	if err := sandbox.SetFault(ctx, st, alt, sandbox.FaultReset); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, base string
		want       sandbox.Fault
	}{
		{"alt", "https://pay.example" + alt, sandbox.FaultReset},
		{"alt behind a prefix", "https://example.com/pay" + alt, sandbox.FaultReset},
		{"default", "https://pay.example" + sandbox.SimPath(schema.MethodWalletA, sandbox.DefaultChannel), sandbox.FaultOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := sandbox.NewFaultSwitch(st, tt.base, nil)
			got, err := sandbox.FaultAt(ctx, st, sw.Path())
			if err != nil || got != tt.want {
				t.Fatalf("fault at %s = %q, %v; want %q", sw.Path(), got, err, tt.want)
			}
		})
	}
	if _, err := sandbox.ParseFault("explode"); err == nil {
		t.Fatal("an unknown fault parsed")
	}
	if err := sandbox.SetFault(ctx, st, alt, "explode"); err == nil {
		t.Fatal("an unknown fault was stored")
	}
}

// TestRestrictedPhrasesAreKeywords: the phrases make a keyword list the
// channels accept (the demo's list holds them), and each matches its own
// family's refusal only where the words are the same.
func TestRestrictedPhrasesAreKeywords(t *testing.T) {
	var kw []string
	for _, p := range sandbox.RestrictedPhrases() {
		kw = append(kw, p)
	}
	if err := channel.CheckKeywords(kw); err != nil {
		t.Fatalf("phrases refused as keywords: %v", err)
	}
	if got := channel.MatchKeyword(kw, "wallet_b native: HTTP 403 NO_AUTH 商户无权限: provider refused the request"); got != "NO_AUTH" {
		t.Fatalf("match = %q", got)
	}
	if got := channel.MatchKeyword(kw, "wallet_a precreate: code 40004 ACQ.TRADE_HAS_SUCCESS trade is paid"); got != "" {
		t.Fatalf("an ordinary refusal matched %q", got)
	}
}
