package walleta_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"

	walleta "github.com/paygate/gateway/provider/walleta"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// FuzzVerify checks notification verification on any form body, seeded
// with the shared vectors: nothing panics and every refusal is forged or
// malformed. Then a valid vector's form, with any one signed field given
// any extra text, is always forged. (Signing costs milliseconds under the
// fuzzer's instrumentation, so the valid form is signed once.)
func FuzzVerify(f *testing.F) {
	var v vectorFile
	providertest.Vectors(f, &v)
	var valid map[string]string
	for _, c := range v.Families.WalletA.Cases {
		form := url.Values{}
		for k, val := range c.Fields {
			form.Set(k, val)
		}
		f.Add(form.Encode(), uint8(len(c.Name)), "x")
		if c.Valid && valid == nil {
			valid = c.Fields
		}
	}
	f.Add("out_trade_no=P1&trade_no=T1&trade_status=TRADE_SUCCESS&total_amount=1.00&sign=x&sign=y", uint8(0), "&a=b")
	if valid == nil {
		f.Fatal("no valid wallet_a vector")
	}
	cfg := walleta.SandboxConfig("http://127.0.0.1:1")
	cfg.ProviderPublicKeyPEM = v.Keys["wallet_a_provider"].PublicPEM
	cfg.AppID = valid["app_id"]
	a, err := walleta.New(cfg, providertest.Caller(f, walleta.Family, cfg.Caller, nil))
	if err != nil {
		f.Fatal(err)
	}
	var signedNames []string
	for k, val := range valid {
		if k != "sign" && k != "sign_type" && val != "" {
			signedNames = append(signedNames, k)
		}
	}
	slices.Sort(signedNames)
	ctx := context.Background()
	verify := func(t *testing.T, body string) error {
		_, err := a.Verify(ctx, &provider.Request{Body: []byte(body)})
		if err != nil && !errors.Is(err, provider.ErrSignature) && !errors.Is(err, provider.ErrMalformed) {
			t.Fatalf("refusal of neither kind: %v", err)
		}
		return err
	}
	form := url.Values{}
	for k, val := range valid {
		form.Set(k, val)
	}
	if _, err := a.Verify(ctx, &provider.Request{Body: []byte(form.Encode())}); err != nil {
		f.Fatalf("the valid vector is refused: %v", err)
	}
	f.Fuzz(func(t *testing.T, body string, field uint8, extra string) {
		_ = verify(t, body)
		if extra == "" {
			return
		}
		name := signedNames[int(field)%len(signedNames)]
		changed := url.Values{}
		for k, val := range valid {
			changed.Set(k, val)
		}
		changed.Set(name, valid[name]+extra)
		if err := verify(t, changed.Encode()); !errors.Is(err, provider.ErrSignature) {
			t.Fatalf("%s changed after signing: %v, want ErrSignature", name, err)
		}
	})
}
