package merchant

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

type oneAccount struct{ a *Account }

func (o oneAccount) Lookup(_ context.Context, appid string) (*Account, error) {
	if appid != o.a.AppID {
		return nil, ErrNotFound
	}
	return o.a, nil
}

// TestInvalidSignDetail: a sandbox merchant's invalid_sign names the string
// we hashed, its key shown as {key} and never the key itself; a live
// merchant's says only that the sign does not match.
func TestInvalidSignDetail(t *testing.T) {
	const key = "k-secret-api-key-0123456789"
	params := func(appid string) schema.Params {
		return schema.Params{"appid": appid, "action": "createorder", "amount": "10.00", "currency": "USD",
			"paymentMethod": "wallet_a", "clientip": "127.0.0.1", "sign": strings.Repeat("0", 32), "sign_type": "MD5"}
	}
	const base = "action=createorder&amount=10.00&appid=%s&clientip=127.0.0.1&currency=USD&paymentMethod=wallet_a{key}"
	tests := []struct {
		name    string
		sandbox bool
		want    string
	}{
		{"sandbox shows the signed string", true, "we computed MD5 of: " + strings.Replace(base, "%s", "1001", 1)},
		{"live keeps today's answer", false, "sign does not match the parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct := &Account{AppID: "1001", APIKey: key, Sandbox: tt.sandbox}
			_, err := AuthenticateSigned(context.Background(), oneAccount{acct}, params("1001"), time.Now())
			var pe *platform.Error
			if !errors.As(err, &pe) || pe.Kind != platform.KindInvalidSign {
				t.Fatalf("err %v, want invalid_sign", err)
			}
			if !strings.HasSuffix(pe.Msg, tt.want) || strings.Contains(pe.Msg, key) {
				t.Fatalf("msg %q, want it to end in %q and never name the key", pe.Msg, tt.want)
			}
			if !tt.sandbox && strings.Contains(pe.Msg, "amount=") {
				t.Fatalf("a live merchant is shown the signed string: %q", pe.Msg)
			}
			good := params("1001")
			good["sign"] = schema.Sign(good, key)
			if _, err := AuthenticateSigned(context.Background(), oneAccount{acct}, good, time.Now()); err != nil {
				t.Fatalf("the right sign: %v", err)
			}
		})
	}
}
