package admin

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/orderview"
)

// viewData is a page of the read-only view of a merchant's console: the
// merchant, where the view's pages live, which tab is open, and the
// console's own page data (orderview.Overview, OrderList, OrderDetail).
type viewData struct {
	A    *merchant.Account
	Base string
	Tab  string
	Page any
}

// consoleView is the read-only view of a merchant's console.
type consoleView struct {
	screen
	view      *orderview.Reader // nil: no ClickHouse in this process
	store     *merchant.Store
	merchants *operator.Merchants
}

// register mounts the read-only view of a merchant's console. Every
// role may look (merchants.view_console); the view has no form, and a
// write sent to any of its paths is refused before any route sees it.
func (c consoleView) register(g fiber.Router) {
	const root = "/merchants/:appid/view"
	for _, p := range []string{root, root + "/*"} {
		g.All(p, c.ui.Require(access.PermMerchantConsole), c.readOnly)
	}
	g.Get(root, c.viewOverview)
	g.Get(root+"/orders", c.viewOrders)
	g.Get(root+"/orders/:id", c.viewOrder)
}

// readOnly refuses every method but GET and HEAD: the view only reads,
// whatever route a later change might add under it.
func (c consoleView) readOnly(ctx *fiber.Ctx) error {
	if m := ctx.Method(); m != fiber.MethodGet && m != fiber.MethodHead {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindForbidden, "the view of a merchant's console is read-only"))
	}
	return ctx.Next()
}

// viewed is the merchant the view shows, once the look is in the audit
// log (operator.Merchants.ViewConsole); a look that cannot be logged is
// not shown.
func (c consoleView) viewed(ctx *fiber.Ctx, page string) (*viewData, error) {
	if c.view == nil {
		return nil, platform.Errorf(platform.KindUnavailable, "the merchant's console needs ClickHouse; open it on a process that has it")
	}
	appid := param(ctx, "appid")
	a, err := c.store.Get(ctx.UserContext(), appid)
	if err != nil {
		return nil, notFound(err)
	}
	if err := c.merchants.ViewConsole(ctx.UserContext(), c.ui.Actor(ctx), a.AppID, page); err != nil {
		return nil, err
	}
	return &viewData{A: a, Base: Prefix + "/merchants/" + url.PathEscape(a.AppID) + "/view", Tab: page}, nil
}

func (c consoleView) viewOverview(ctx *fiber.Ctx) error {
	d, err := c.viewed(ctx, "overview")
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	v := c.ui.View(ctx, "title_view_overview")
	v.Sandbox = d.A.Sandbox
	if d.Page, err = c.view.Overview(ctx.UserContext(), d.A.AppID, query(ctx, "range"), v.L, v.Zone); err != nil {
		return c.ui.Fail(ctx, err)
	}
	v.Data = d
	return c.ui.Render(ctx, "view_overview", v)
}

func (c consoleView) viewOrders(ctx *fiber.Ctx) error {
	d, err := c.viewed(ctx, "orders")
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if d.Page, err = c.view.Orders(ctx, d.A.AppID, d.Base+"/orders"); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "view_orders", "title_view_orders", d)
}

func (c consoleView) viewOrder(ctx *fiber.Ctx) error {
	id := param(ctx, "id")
	if _, ok := schema.ParseOrderID(id); !ok {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindNotFound, "no such order"))
	}
	d, err := c.viewed(ctx, "order:"+id)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.Tab = "orders"
	if d.Page, err = c.view.Order(ctx.UserContext(), d.A.AppID, id); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "view_order", "title_view_order", d)
}
