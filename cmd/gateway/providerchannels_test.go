package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// wireTest runs wireProviders over cfg without dialling anything.
func wireTest(t *testing.T, cfg platform.Config) (*providerSet, error) {
	t.Helper()
	m, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // wiring dials nothing
	t.Cleanup(func() { _ = rdb.Close() })
	return wireProviders(cfg, rdb, m, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// walletaAccount is a live wallet_a account's configuration whose
// provider signs with key; id, when set, makes it a list entry.
func walletaAccount(t *testing.T, id, appID string, key *rsa.PrivateKey) map[string]any {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"base_url": "https://wallet-a.example.com", "app_id": appID,
		"app_private_key_pem": walleta.SandboxAppPrivatePEM, "provider_public_key_pem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}
	if id != "" {
		out["id"] = id
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestProvidersFileRefusesBadChannelLists: a method's list of channels
// with two channels of one id, an id with markup, an entry without an id,
// or more channels than GATEWAY_CHANNELS_MAX is refused at start, every
// problem named at once.
func TestProvidersFileRefusesBadChannelLists(t *testing.T) {
	const cryptohost = `"base_url": "https://api.example.com", "api_key": "k", "webhook_secret": "s"`
	t.Setenv("GATEWAY_PROVIDER_CRYPTOHOST", `[{"id": "a", `+cryptohost+`}, {"id": "a", `+cryptohost+`}, {"id": "<b>", `+cryptohost+`}, {`+cryptohost+`}]`)
	t.Setenv("GATEWAY_PROVIDER_FIATPSP", `[{"id": "x"}, {"id": "y"}, {"id": "z"}]`)
	t.Setenv("GATEWAY_CHANNELS_MAX", "2")
	cfg := boundConfig(t)
	_, err := decodeProviders(cfg.Providers(), cfg.ChannelsMax)
	if err == nil {
		t.Fatal("bad channel lists accepted")
	}
	for _, want := range []string{`provider cryptohost: two channels with id "a"`, `channel id "<b>"`, `channel 4 has no "id"`,
		"provider fiatpsp: 3 channels, more than channels-max 2", "provider fiatpsp channel x:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if _, err := wireTest(t, cfg); err == nil || !strings.Contains(err.Error(), `two channels with id "a"`) {
		t.Fatalf("serve's wiring: %v", err)
	}
}

// TestProvidersListFormBuildsAChannelEach: two wallet_a accounts with
// their own keys are two channels, each verifying with its own provider
// key only; the one-object form of before channels is channel default.
func TestProvidersListFormBuildsAChannelEach(t *testing.T) {
	ka, kb := rsaKey(t), rsaKey(t)
	t.Setenv("GATEWAY_PROVIDER_WALLET_A", jsonOf(t, []any{walletaAccount(t, "a", "2000000000000011", ka), walletaAccount(t, "b", "2000000000000022", kb)}))
	t.Setenv("GATEWAY_PROVIDER_WALLET_B", "") // not configured
	set, err := wireTest(t, boundConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := set.registry.Channels(schema.MethodWalletA, false); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("live wallet_a channels %v, want [a b]", got)
	}
	// A notification the provider of account a signed verifies with
	// channel a and is a bad signature for channel b.
	for _, tt := range []struct {
		id      string
		badSign bool
	}{{"a", false}, {"b", true}} {
		a, ok := set.registry.ForChannel(schema.MethodWalletA, false, tt.id)
		if !ok {
			t.Fatalf("no channel %s", tt.id)
		}
		_, err := a.Verify(context.Background(), walletaNotification(t, ka, "2000000000000011"))
		if errors.Is(err, provider.ErrSignature) != tt.badSign {
			t.Errorf("channel %s: verify = %v, want bad signature %v", tt.id, err, tt.badSign)
		}
	}

	t.Setenv("GATEWAY_PROVIDER_WALLET_A", jsonOf(t, walletaAccount(t, "", "2000000000000011", ka)))
	set, err = wireTest(t, boundConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := set.registry.Channels(schema.MethodWalletA, false); !slices.Equal(got, []string{channel.Default}) {
		t.Fatalf("one-object form: channels %v, want [default]", got)
	}
}

// walletaNotification is a paid notification of app appID signed with the
// provider's key.
func walletaNotification(t *testing.T, key *rsa.PrivateKey, appID string) *provider.Request {
	t.Helper()
	fields := map[string]string{"app_id": appID, "out_trade_no": "P1", "trade_no": "T1", "trade_status": "TRADE_SUCCESS",
		"total_amount": "1.00", "notify_time": "2026-01-01 00:00:00", "sign_type": "RSA2"}
	sig, err := walleta.SignFields(key, walleta.NotifyBase(fields))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"sign": {sig}}
	for k, v := range fields {
		form.Set(k, v)
	}
	body := form.Encode()
	return &provider.Request{Body: []byte(body), Form: form, Header: map[string][]string{"Content-Type": {"application/x-www-form-urlencoded"}}}
}

// TestSandboxHasEveryChannelOfEveryFamily: every family has one sandbox
// channel per GATEWAY_SANDBOX_CHANNELS id, each with its simulator.
func TestSandboxHasEveryChannelOfEveryFamily(t *testing.T) {
	t.Setenv("GATEWAY_SANDBOX_CHANNELS", "default,alt,third")
	set, err := wireTest(t, boundConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	for m := range providerFamilies() {
		if got := set.registry.Channels(m, true); !slices.Equal(got, []string{"default", "alt", "third"}) {
			t.Errorf("%s sandbox channels %v", m, got)
		}
		for _, id := range []string{"default", "alt", "third"} {
			if set.simulators[channel.Ref{Sandbox: true, Method: m, ID: id}] == nil {
				t.Errorf("%s channel %s has no simulator (%s)", m, id, sandbox.SimPath(m, id))
			}
		}
	}
}

// TestCallerNamesTellChannelsApart: a channel's calls are counted under a
// name of its own; the default channel keeps the name of before channels.
func TestCallerNamesTellChannelsApart(t *testing.T) {
	tests := []struct {
		sandbox bool
		id      string
		want    string
	}{
		{false, "default", "wallet_a"}, {false, "", "wallet_a"}, {false, "b", "wallet_a.b"},
		{true, "default", "wallet_a_sandbox"}, {true, "alt", "wallet_a_sandbox.alt"},
	}
	for _, tt := range tests {
		if got := callerName(schema.MethodWalletA, tt.sandbox, tt.id); got != tt.want {
			t.Errorf("sandbox %v channel %q: %q, want %q", tt.sandbox, tt.id, got, tt.want)
		}
	}
}
