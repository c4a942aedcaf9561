package admin

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/operator"
	orderq "github.com/paygate/gateway/query"
)

// MethodOrders counts every merchant's orders by method and mode since a
// time (query.ClickHouseOrders); nil in a process without ClickHouse.
type MethodOrders interface {
	MethodsSince(ctx context.Context, since time.Time) ([]orderq.MethodOrders, error)
}

// providersOrdersWindow is how far back the page counts orders: a family
// with orders today is listed even when the last hour saw no call of it.
const providersOrdersWindow = 24 * time.Hour

// providerRow is one provider (a family's channel) on the Providers page:
// its health over the last hour and its family's orders of the day.
type providerRow struct {
	operator.ProviderHealth
	Family  string // the method code
	Channel string // "" for the default channel
	Orders  int    // the family's orders of the day, in this mode (on its first row)
	Counted bool   // the orders could be counted (ClickHouse)
}

type providersData struct {
	Groups  []providerGroup // live, then sandbox
	Window  string
	Counted bool
}

// providerGroup is one mode's providers.
type providerGroup struct {
	Mode  string // "live" or "sandbox"
	Title string // message id
	Rows  []providerRow
}

func (c *Console) providers(ctx *fiber.Ctx) error {
	uc := ctx.UserContext()
	rows, err := c.d.Health.Providers(uc, c.ui.Actor(ctx), time.Hour)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	var orders []orderq.MethodOrders
	counted := c.d.Orders != nil
	if counted {
		// A count that fails leaves the health to show; the page says
		// the orders could not be counted.
		if orders, err = c.d.Orders.MethodsSince(uc, c.now().Add(-providersOrdersWindow)); err != nil {
			counted, orders = false, nil
		}
	}
	d := providersData{Window: "1h", Counted: counted}
	live, sandbox := providerGroups(rows, orders, counted)
	d.Groups = []providerGroup{{Mode: "live", Title: "providers_live", Rows: live}, {Mode: "sandbox", Title: "providers_sandbox", Rows: sandbox}}
	return c.page(ctx, "providers", "title_providers", d)
}

// providerGroups sorts the health rows into live and sandbox by their name
// (a sandbox channel's calls are counted as "<method>_sandbox[.<channel>]",
// a live one's as "<method>[.<channel>]") and adds a row for every family
// that has orders in a mode but no health row there, so no family with
// orders is missing from the page.
func providerGroups(health []operator.ProviderHealth, orders []orderq.MethodOrders, counted bool) (live, sandbox []providerRow) {
	groups := map[bool][]providerRow{}
	for _, h := range health {
		name, channel, _ := strings.Cut(h.Provider, ".")
		family, sb := strings.CutSuffix(name, "_sandbox")
		groups[sb] = append(groups[sb], providerRow{ProviderHealth: h, Family: family, Channel: channel, Counted: counted})
	}
	for _, o := range orders {
		rows := groups[o.Sandbox]
		i := slices.IndexFunc(rows, func(r providerRow) bool { return r.Family == o.Method && r.Channel == "" })
		if i < 0 {
			i = slices.IndexFunc(rows, func(r providerRow) bool { return r.Family == o.Method })
		}
		if i < 0 {
			p := o.Method
			if o.Sandbox {
				p += "_sandbox"
			}
			groups[o.Sandbox] = append(rows, providerRow{ProviderHealth: operator.ProviderHealth{Provider: p}, Family: o.Method, Counted: counted})
			i = len(groups[o.Sandbox]) - 1
		}
		groups[o.Sandbox][i].Orders += o.Orders
	}
	for _, sb := range []bool{false, true} {
		slices.SortFunc(groups[sb], func(a, b providerRow) int {
			return cmp.Or(cmp.Compare(a.Family, b.Family), cmp.Compare(a.Channel, b.Channel))
		})
	}
	return groups[false], groups[true]
}
