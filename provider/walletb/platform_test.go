package walletb_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"

	"github.com/paygate/gateway/internal/config"
	"github.com/paygate/gateway/provider"
)

// clock is a clock a test moves; it starts at the real time, so that the
// simulator's time stamps stay within the replay window.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.off += d; c.mu.Unlock() }

// withAdapter gives the harness an adapter of cfg changed by change, on
// clk.
func (h *harness) withAdapter(t *testing.T, clk *clock, change func(*walletb.Config)) {
	t.Helper()
	cfg := walletb.SandboxConfig(h.base + simPrefix)
	cfg.Now = clk.Now
	cfg.MaxSkew = config.Duration(time.Hour)
	if change != nil {
		change(&cfg)
	}
	h.adapter = newAdapter(t, cfg)
}

// TestPlatformRotation: the simulated provider moves to a new platform
// certificate; the adapter, configured with the old serial only, fetches
// the provider's list when it first sees the new serial and verifies both
// answers and notifications signed with either. A second unknown serial
// within the gap is refused without another fetch.
func TestPlatformRotation(t *testing.T) {
	h := newHarness(t)
	clk := &clock{}
	h.withAdapter(t, clk, nil)
	before := h.payment("P-before", 100, "CNY")
	if _, err := h.adapter.Initialise(t.Context(), before); err != nil {
		t.Fatal(err)
	}
	if _, err := h.sim.Rotate(); err != nil {
		t.Fatal(err)
	}
	after := h.payment("P-after", 100, "CNY")
	init, err := h.adapter.Initialise(t.Context(), after)
	if err != nil {
		t.Fatalf("answer under the new certificate: %v", err)
	}
	if got := h.sim.CertificateCalls(); got != 1 {
		t.Fatalf("certificates calls = %d, want 1", got)
	}
	settle(t, h, init.Ref, true)
	if r := h.got.Next(t); r.err != nil {
		t.Fatalf("notification under the new certificate: %v", r.err)
	}
	if _, err := h.sim.Rotate(); err != nil {
		t.Fatal(err)
	}
	_, err = h.adapter.Initialise(t.Context(), h.payment("P-within-gap", 100, "CNY"))
	if !errors.Is(err, provider.ErrSignature) || h.sim.CertificateCalls() != 1 {
		t.Fatalf("second new serial within the gap: %v after %d calls; want ErrSignature after 1", err, h.sim.CertificateCalls())
	}
	clk.Add(walletb.DefaultPlatformCertGap)
	if _, err := h.adapter.Initialise(t.Context(), h.payment("P-after-gap", 100, "CNY")); err != nil {
		t.Fatalf("after the gap: %v", err)
	}
}

// TestPlatformPeriodicRefresh: no fetch before the refresh interval; once
// it has passed, a call starts a fetch in the background, so a rotation
// is known before any message uses it.
func TestPlatformPeriodicRefresh(t *testing.T) {
	h := newHarness(t)
	h.withAdapter(t, &clock{}, nil)
	if _, err := h.adapter.Initialise(t.Context(), h.payment("P-1", 100, "CNY")); err != nil {
		t.Fatal(err)
	}
	if h.sim.CertificateCalls() != 0 {
		t.Fatal("fetched before the interval")
	}
	h.withAdapter(t, &clock{}, func(c *walletb.Config) { c.PlatformCertRefresh = config.Duration(time.Nanosecond) })
	time.Sleep(time.Millisecond) // the interval passes
	if _, err := h.adapter.Initialise(t.Context(), h.payment("P-2", 100, "CNY")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.sim.CertificateCalls() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h.sim.CertificateCalls() == 0 {
		t.Fatal("no certificates call after the interval")
	}
}

// TestConfiguredPlatformKeys: with fetching off, a message is verified
// with the configured key its serial names, and an unknown serial is
// refused without a call.
func TestConfiguredPlatformKeys(t *testing.T) {
	h := newHarness(t)
	old := walletb.PlatformKey{Serial: walletb.SandboxPlatformSerial, PublicKeyPEM: walletb.SandboxPlatformPublicPEM}
	h.withAdapter(t, &clock{}, func(c *walletb.Config) {
		// the primary key is another one; the simulator's is the extra
		c.PlatformSerial, c.PlatformPublicKeyPEM = "0AAA", walletb.SandboxMerchantPublicPEM
		c.PlatformKeys = []walletb.PlatformKey{old}
		c.PlatformCertRefresh = 0
	})
	if _, err := h.adapter.Initialise(t.Context(), h.payment("P-extra", 100, "CNY")); err != nil {
		t.Fatalf("answer under the extra configured key: %v", err)
	}
	if _, err := h.sim.Rotate(); err != nil {
		t.Fatal(err)
	}
	_, err := h.adapter.Initialise(t.Context(), h.payment("P-unknown", 100, "CNY"))
	if !errors.Is(err, provider.ErrSignature) || h.sim.CertificateCalls() != 0 {
		t.Fatalf("unknown serial with fetching off: %v after %d calls", err, h.sim.CertificateCalls())
	}
}

func TestPlatformKeysValidate(t *testing.T) {
	k := walletb.PlatformKey{Serial: "0BBB", PublicKeyPEM: walletb.SandboxPlatformPublicPEM}
	tests := []struct {
		name string
		keys []walletb.PlatformKey
		ok   bool
	}{
		{"one extra", []walletb.PlatformKey{k}, true},
		{"serial twice", []walletb.PlatformKey{k, k}, false},
		{"the primary's serial", []walletb.PlatformKey{{Serial: walletb.SandboxPlatformSerial, PublicKeyPEM: k.PublicKeyPEM}}, false},
		{"no key", []walletb.PlatformKey{{Serial: "0CCC"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := walletb.SandboxConfig("http://sim.example")
			c.PlatformKeys = tt.keys
			if err := c.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, ok %v", err, tt.ok)
			}
		})
	}
}
