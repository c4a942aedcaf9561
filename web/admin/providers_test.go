package admin

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/operator"
	orderq "github.com/paygate/gateway/query"
)

// testMethods are the orders of the day the Providers page counts: a
// sandbox cryptopsp family no call was counted for, and wallet_a live.
type testMethods struct{}

func (testMethods) MethodsSince(context.Context, time.Time) ([]orderq.MethodOrders, error) {
	return []orderq.MethodOrders{{Method: "cryptopsp", Sandbox: true, Orders: 4}, {Method: "wallet_a", Sandbox: false, Orders: 2}}, nil
}

// TestProviderGroups: health rows sorted into live and sandbox by their
// name, channels beside their family, and every family with orders listed
// in its mode even without a call in the last hour.
func TestProviderGroups(t *testing.T) {
	health := []operator.ProviderHealth{{Provider: "wallet_a", Calls: 9}, {Provider: "wallet_a.alt", Calls: 1},
		{Provider: "wallet_a_sandbox", Calls: 3}, {Provider: "bdcard_sandbox.b", Calls: 2}}
	orders := []orderq.MethodOrders{{Method: "cryptopsp", Sandbox: true, Orders: 4}, {Method: "wallet_a", Orders: 7},
		{Method: "wallet_a", Sandbox: true, Orders: 5}, {Method: "bdcard", Sandbox: true, Orders: 1}, {Method: "fiatpsp", Orders: 2}}
	live, sandbox := providerGroups(health, orders, true)
	show := func(rows []providerRow) string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Family+"/"+r.Channel+"="+strconv.Itoa(r.Orders))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ name, got, want string }{
		{"live", show(live), "fiatpsp/=2 wallet_a/=7 wallet_a/alt=0"},
		{"sandbox", show(sandbox), "bdcard/b=1 cryptopsp/=4 wallet_a/=5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s, want %s", tc.got, tc.want)
			}
		})
	}
}

// TestProvidersPageListsEveryFamilyWithOrders: cryptopsp, with sandbox
// orders and no call in the last hour, is on the page, under Sandbox.
func TestProvidersPageListsEveryFamilyWithOrders(t *testing.T) {
	e := newEnv(t)
	s := e.session(t, access.RealmOperator, "al@ops.test")
	res := e.do(t, get("/admin/providers", s))
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d\n%s", res.StatusCode, body)
	}
	page := string(body)
	sandbox := page[strings.Index(page, `data-provider-group="sandbox"`):]
	live := page[strings.Index(page, `data-provider-group="live"`):strings.Index(page, `data-provider-group="sandbox"`)]
	for _, tc := range []struct{ name, in, family, orders string }{
		{"cryptopsp under sandbox", sandbox, "cryptopsp", "4"}, {"wallet_a under live", live, "wallet_a", "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile(`data-family="` + tc.family + `">.*?\n<td class="num" data-label="[^"]*" data-orders>(\d+)<`)
			m := re.FindStringSubmatch(tc.in)
			if m == nil || m[1] != tc.orders {
				t.Errorf("%s: row %v, want %s orders\n%s", tc.family, m, tc.orders, tc.in)
			}
		})
	}
	if strings.Contains(live, `data-family="cryptopsp"`) {
		t.Error("cryptopsp's sandbox orders are listed under live")
	}
}
