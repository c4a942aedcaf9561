package admin

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

type merchantsData struct {
	Q    string
	Rows []*merchant.Account
	// Payers are the accounts that only pay with their balance (the
	// demo's payer): listed apart, they are not merchants.
	Payers []*merchant.Account
}

// merchants lists the accounts, those whose appid or name holds q.
func (c *Console) merchants(ctx *fiber.Ctx) error {
	all, err := c.d.Store.List(ctx.UserContext())
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	q := query(ctx, "q")
	d := merchantsData{Q: q}
	for _, a := range all {
		if q != "" && a.AppID != q && !strings.Contains(strings.ToLower(a.Name), strings.ToLower(q)) {
			continue
		}
		if a.PayerOnly {
			d.Payers = append(d.Payers, a)
		} else {
			d.Rows = append(d.Rows, a)
		}
	}
	return c.page(ctx, "merchants", "title_merchants", d)
}

func (c *Console) createMerchant(ctx *fiber.Ctx) error {
	name, err := text(ctx, "name", merchant.MaxNameLen)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	a, err := c.d.Merchants.Create(ctx.UserContext(), c.ui.Actor(ctx),
		merchant.NewAccount{Name: name, Callback: form(ctx, "callback"), Sandbox: form(ctx, "mode") == "sandbox"})
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.after(ctx, nil, "/merchants/"+a.AppID, "created")
}

// limitRow is one method's amount limits for the merchant.
type limitRow struct {
	Method     schema.Method
	Min, Max   string
	Overridden bool
	Live       bool // its provider is configured live
}

type merchantData struct {
	A       *merchant.Account
	Limits  []limitRow
	Users   []*access.Account
	APIKey  apiKeyState
	History []audit.Row
	Keys    []keyAge
	Money   *merchantMoney
}

func (c *Console) merchant(ctx *fiber.Ctx) error {
	uc := ctx.UserContext()
	a, err := c.d.Store.Get(uc, param(ctx, "appid"))
	if err != nil {
		return c.ui.Fail(ctx, notFound(err))
	}
	// The balances are the journal's, in the money section (merchantmoney).
	d := merchantData{A: a}
	for _, m := range schema.AllMethods() {
		if !m.Selectable() {
			continue
		}
		row := limitRow{Method: m, Live: slices.Contains(c.d.Live, string(m))}
		if l, ok := a.MethodLimits[m]; ok {
			row.Overridden, row.Min, row.Max = true, l.Min.String(), l.Max.String()
		}
		d.Limits = append(d.Limits, row)
	}
	if d.Users, err = c.d.Accounts.List(uc, access.RealmMerchant, a.AppID); err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.History = c.history(uc, "merchant:"+a.AppID)
	d.APIKey = apiKeyOf(a, d.History, c.now())
	d.Keys = keyAges(a, d.History, c.now())
	if d.Money, err = (moneyPages{screen: c.screen, money: c.d.Money}).section(ctx, a); err != nil {
		return c.ui.Fail(ctx, err)
	}
	return c.page(ctx, "merchant", "title_merchant", d)
}

// history is the last changes of target, or none without ClickHouse.
func (c *Console) history(ctx context.Context, target string) []audit.Row {
	if c.d.Audit == nil {
		return nil
	}
	p, err := c.d.Audit.Search(ctx, audit.Filter{Target: target, Limit: 20})
	if err != nil {
		return nil
	}
	return p.Rows
}

func (c *Console) merchantState(ctx *fiber.Ctx) error {
	appid, disable := param(ctx, "appid"), form(ctx, "state") == "disable"
	reason, err := text(ctx, "reason", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	_, err = c.d.Merchants.SetDisabled(ctx.UserContext(), c.ui.Actor(ctx), appid, disable, reason)
	done := "enabled"
	if disable {
		done = "disabled"
	}
	return c.after(ctx, err, "/merchants/"+appid, done)
}

func (c *Console) credit(ctx *fiber.Ctx) error {
	appid := param(ctx, "appid")
	amt, err := schema.ParseAmount(form(ctx, "amount"))
	if err != nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "amount: %v", err))
	}
	_, err = c.d.Merchants.Credit(ctx.UserContext(), c.ui.Actor(ctx), appid, form(ctx, "currency"), amt, "")
	return c.after(ctx, err, "/merchants/"+appid, "credited")
}

func (c *Console) limits(ctx *fiber.Ctx) error {
	appid := param(ctx, "appid")
	_, err := c.d.Merchants.SetLimits(ctx.UserContext(), c.ui.Actor(ctx), appid,
		merchant.LimitOverrides{Create: form(ctx, "create"), Query: form(ctx, "query"), Report: form(ctx, "report")})
	return c.after(ctx, err, "/merchants/"+appid, "limits")
}

// notFound makes the store's missing account a 404.
func notFound(err error) error {
	if errors.Is(err, merchant.ErrNotFound) {
		return platform.Errorf(platform.KindNotFound, "no such merchant")
	}
	return err
}
