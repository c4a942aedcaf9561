package checkout

import (
	"errors"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// The balance flow: a payer logs in with a platform account, sees the
// balance and confirms. The session cookie is HttpOnly and SameSite=Lax,
// Secure under https; every form carries the CSRF token.
const sessionCookie = "gw_session"

// loginView is the login page: the form, or the logged-in account with its
// balances and, for an order awaiting balance, the confirm form.
type loginView struct {
	OrderID  string
	Account  string
	Balances []balanceLine
	Confirm  string // the confirm button's words; empty when it cannot be offered
	Short    string // why it cannot: the balance does not cover the order
	Problem  string // the last attempt's error, worded
	AppID    string // kept in the form after a failed attempt
}

type balanceLine struct{ Currency, Amount string }

// loginPage serves GET /merchant/login[?order=ID].
func (p *loginStep) loginPage(c *fiber.Ctx, v *view) error {
	var o *schema.Order
	if id := c.Query("order"); id != "" {
		var err error
		if o, err = p.orders.Reads.Order(c.UserContext(), id); err != nil {
			return err
		}
		if o.Status.Live() && o.NextAction != schema.NextBalanceLogin {
			return p.redirect(c, p.next(v, o))
		}
		if !o.Status.Live() {
			return p.redirect(c, v.Prefix+"/payment/"+url.PathEscape(o.ID))
		}
	}
	return p.login(c, v, o, loginView{})
}

// loginFor is the payment page of an order awaiting its balance payment.
func (p *loginStep) loginFor(c *fiber.Ctx, v *view, o *schema.Order) error {
	return p.login(c, v, o, loginView{})
}

func (p *loginStep) login(c *fiber.Ctx, v *view, o *schema.Order, lv loginView) error {
	status := fiber.StatusOK
	if o != nil {
		if err := p.forOrder(c, v, o); err != nil {
			return err
		}
		choosing(v) // to log in and confirm is the payer's step
		lv.OrderID = o.ID
	}
	if acct := p.session(c); acct != nil {
		if err := p.account(c, v, o, acct, &lv); err != nil {
			return err
		}
	} else if lv.Problem != "" {
		status = fiber.StatusUnauthorized
	}
	p.withCSRF(c, v)
	v.Title, v.Data = v.L.T("login_title"), lv
	return p.render(c, status, "login", v)
}

// account fills the logged-in part: balances, and the confirm offer.
func (p *loginStep) account(c *fiber.Ctx, v *view, o *schema.Order, acct *merchant.Account, lv *loginView) error {
	bals, err := p.payers.Balances(c.UserContext(), acct.AppID)
	if err != nil {
		return err
	}
	lv.Account = acct.AppID
	for _, cur := range sortedKeys(bals) {
		lv.Balances = append(lv.Balances, balanceLine{Currency: cur, Amount: bals[cur].String()})
	}
	if o == nil {
		return nil
	}
	have := bals[o.Currency]
	if have < o.Amount {
		lv.Short = v.L.T("balance_short", "Balance", have.String(), "Amount", o.Amount.String(), "Currency", o.Currency)
		return nil
	}
	lv.Confirm = v.L.T("balance_confirm", "Amount", o.Amount.String(), "Balance", have.String(), "Currency", o.Currency)
	return nil
}

// session is the logged-in account, or nil.
func (p *loginStep) session(c *fiber.Ctx) *merchant.Account {
	tok := c.Cookies(sessionCookie)
	if tok == "" {
		return nil
	}
	acct, err := p.payers.Session(c.UserContext(), tok)
	if err != nil {
		return nil
	}
	return acct
}

// loginPost serves the login form. A wrong password or a spent attempt
// limit shows the form again with the reason; nothing says which of
// account and password was wrong.
func (p *loginStep) loginPost(c *fiber.Ctx, v *view) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	var o *schema.Order
	if id := c.FormValue("order"); id != "" {
		var err error
		if o, err = p.orders.Reads.Order(c.UserContext(), id); err != nil {
			return err
		}
	}
	appid := c.FormValue("appid")
	tok, _, err := p.payers.Login(c.UserContext(), appid, c.FormValue("password"), server.ClientAddr(p.ips, c))
	p.m.done("login", err)
	if err != nil {
		lv := loginView{AppID: appid, Problem: v.L.T("err_internal")}
		var rl *platform.RateLimited
		switch body := server.Classify(err); {
		case errors.As(err, &rl):
			lv.Problem = v.L.T("err_rate_limited")
			c.Set(fiber.HeaderRetryAfter, "60")
		case v.L.Has("err_" + body.Error):
			lv.Problem = v.L.T("err_" + body.Error)
		}
		return p.login(c, v, o, lv)
	}
	c.Cookie(&fiber.Cookie{Name: sessionCookie, Value: tok, Path: "/", HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode, Secure: p.cfg.secure()})
	to := v.Prefix + "/merchant/login"
	if o != nil {
		to += "?order=" + url.QueryEscape(o.ID)
	}
	return p.redirect(c, to)
}

// payPost confirms the balance payment of an order.
func (p *loginStep) payPost(c *fiber.Ctx, v *view) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	acct := p.session(c)
	id := c.FormValue("order")
	if acct == nil {
		return p.redirect(c, v.Prefix+"/merchant/login?order="+url.QueryEscape(id))
	}
	o, err := p.orders.Balance.PayWithBalance(c.UserContext(), id, acct.AppID)
	p.m.done("balance", err)
	if err != nil {
		return err
	}
	return p.redirect(c, v.Prefix+"/payment/"+url.PathEscape(o.ID))
}

// logoutPost ends the session.
func (p *loginStep) logoutPost(c *fiber.Ctx, v *view) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	if tok := c.Cookies(sessionCookie); tok != "" {
		if err := p.payers.Logout(c.UserContext(), tok); err != nil {
			return err
		}
	}
	c.ClearCookie(sessionCookie)
	to := v.Prefix + "/merchant/login"
	if id := c.FormValue("order"); id != "" {
		to += "?order=" + url.QueryEscape(id)
	}
	return p.redirect(c, to)
}
