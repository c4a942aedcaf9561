package walleta_test

import (
	"testing"

	walleta "github.com/paygate/gateway/provider/walleta"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
)

type vectorKey struct {
	PrivatePEM string `json:"private_pem"`
	PublicPEM  string `json:"public_pem"`
}

type vectorCase struct {
	Name   string            `json:"name"`
	Fields map[string]string `json:"fields"`
	Base   string            `json:"base"`
	Valid  bool              `json:"valid"`
}

type vectorFile struct {
	Keys     map[string]vectorKey `json:"keys"`
	Families struct {
		WalletA struct {
			Cases []vectorCase `json:"cases"`
		} `json:"wallet_a"`
	} `json:"families"`
}

func readVectors(t *testing.T) vectorFile {
	t.Helper()
	var v vectorFile
	providertest.Vectors(t, &v)
	return v
}

// vectorAdapter is an adapter that trusts the vectors' provider key and
// has the vectors' app id.
func vectorAdapter(t *testing.T, v vectorFile) *walleta.Adapter {
	t.Helper()
	cfg := walleta.SandboxConfig("http://127.0.0.1:1")
	cfg.ProviderPublicKeyPEM = v.Keys["wallet_a_provider"].PublicPEM
	cfg.AppID = v.Families.WalletA.Cases[0].Fields["app_id"]
	return newAdapter(t, cfg)
}

func newAdapter(t *testing.T, cfg walleta.Config) *walleta.Adapter {
	t.Helper()
	a, err := walleta.New(cfg, providertest.Caller(t, walleta.Family, cfg.Caller, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func checkPaid(t *testing.T, n provider.Notification, orderID, amount, currency string) {
	t.Helper()
	want, err := schema.ParseAmount(amount)
	if err != nil {
		t.Fatal(err)
	}
	if n.Outcome != provider.OutcomePaid || n.OrderID != orderID || n.Paid != (provider.Money{Amount: want, Currency: currency}) {
		t.Fatalf("notification = %v %q %+v, want paid %q %s %s", n.Outcome, n.OrderID, n.Paid, orderID, amount, currency)
	}
}
