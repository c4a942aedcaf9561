package operator

import (
	"context"
	"testing"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// TestCallbackRule: the operator's doors (CLI, operator console) store a
// callback URL only under the merchant console's rule
// (merchant.ValidateCallback): form, then address, with loopback and
// private addresses refused unless GATEWAY_WEBHOOK_ALLOW_PRIVATE. Create
// with a callback is held to the same rule.
func TestCallbackRule(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		allowPrivate bool
		url          string
		ok           bool
	}{
		{"loopback refused", false, "http://127.0.0.1/x", false},
		{"IPv6 loopback refused", false, "http://[::1]/x", false},
		{"private refused", false, "http://10.0.0.8/hook", false},
		{"metadata refused", false, "http://169.254.169.254/latest", false},
		{"not http refused", false, "ftp://93.184.216.34/hook", false},
		{"credentials refused", false, "https://u:p@93.184.216.34/hook", false},
		{"public address kept", false, "https://93.184.216.34/hook", true},
		{"empty clears", false, "", true},
		{"loopback kept when private is allowed", true, "http://127.0.0.1/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := miniRedis(t)
			st := merchant.NewStore(rdb)
			ms := NewMerchants(st, audit.NewLog(rdb), dispatcher.NewDestinations(tt.allowPrivate))
			a, err := st.Create(ctx, merchant.NewAccount{Name: "Shop", Callback: "https://93.184.216.34/before"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ms.SetCallback(ctx, cliActor, a.AppID, tt.url)
			if (err == nil) != tt.ok || (err != nil && !isKind(err, platform.KindInvalidParameter)) {
				t.Fatalf("set-callback %q: %v, want ok %v (an invalid_parameter otherwise)", tt.url, err, tt.ok)
			}
			got, _ := st.Get(ctx, a.AppID)
			if want := map[bool]string{true: tt.url, false: "https://93.184.216.34/before"}[tt.ok]; got.Callback != want {
				t.Fatalf("callback %q after set-callback, want %q", got.Callback, want)
			}
			_, err = ms.Create(ctx, cliActor, merchant.NewAccount{Name: "Other", Callback: tt.url})
			if (err == nil) != tt.ok {
				t.Fatalf("create with callback %q: %v, want ok %v", tt.url, err, tt.ok)
			}
		})
	}
}
