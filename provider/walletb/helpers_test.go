package walletb_test

import (
	"encoding/json"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
)

type vectorKey struct {
	PrivatePEM string `json:"private_pem"`
	PublicPEM  string `json:"public_pem"`
}

type vectorCase struct {
	Name          string            `json:"name"`
	Headers       map[string]string `json:"headers"`
	Body          string            `json:"body"`
	SignedMessage string            `json:"signed_message"`
	Valid         bool              `json:"valid"`
	Plaintext     string            `json:"plaintext"`
}

type vectorFile struct {
	Keys     map[string]vectorKey `json:"keys"`
	Families struct {
		WalletB struct {
			APIv3Key string       `json:"apiv3_key"`
			Cases    []vectorCase `json:"cases"`
		} `json:"wallet_b"`
	} `json:"families"`
}

func readVectors(t *testing.T) vectorFile {
	t.Helper()
	var v vectorFile
	providertest.Vectors(t, &v)
	if len(v.Families.WalletB.Cases) == 0 {
		t.Fatal("no wallet_b cases")
	}
	return v
}

// vectorTime is the vectors' time stamp: the clock the vector adapter runs.
func vectorTime(t *testing.T, v vectorFile) time.Time {
	t.Helper()
	var ts int64
	if err := json.Unmarshal([]byte(v.Families.WalletB.Cases[0].Headers["timestamp"]), &ts); err != nil {
		t.Fatal(err)
	}
	return time.Unix(ts, 0)
}

// vectorConfig trusts the vectors' platform key, serial and API v3 key, is
// the vectors' merchant, and runs at the vectors' time plus offset.
func vectorConfig(t *testing.T, v vectorFile, offset time.Duration) walletb.Config {
	t.Helper()
	now := vectorTime(t, v).Add(offset)
	cfg := walletb.SandboxConfig("http://127.0.0.1:1")
	cfg.PlatformPublicKeyPEM = v.Keys["wallet_b_platform"].PublicPEM
	cfg.PlatformSerial = v.Families.WalletB.Cases[0].Headers["serial"]
	cfg.APIv3Key = v.Families.WalletB.APIv3Key
	cfg.MerchantID = "1900000001"
	cfg.Now = func() time.Time { return now }
	return cfg
}

func newAdapter(t *testing.T, cfg walletb.Config) *walletb.Adapter {
	t.Helper()
	a, err := walletb.New(cfg, providertest.Caller(t, walletb.Family, cfg.Caller, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func checkPaid(t *testing.T, n provider.Notification, orderID string, total int64, currency string) {
	t.Helper()
	want := provider.Money{Amount: schema.Amount(total), Currency: currency}
	if n.Outcome != provider.OutcomePaid || n.OrderID != orderID || n.Paid != want {
		t.Fatalf("notification = %v %q %+v, want paid %q %+v", n.Outcome, n.OrderID, n.Paid, orderID, want)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
