package checkout

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// usdtView is the USDT direct checkout: the network choice, then what to
// send where with the hash form, then the review.
type usdtView struct {
	Networks  []schema.USDTNetwork
	Network   string
	Address   string
	QR        string
	Payable   string
	ExpiresMS int64  // Unix ms, for the countdown
	Left      string // the time left when the page was made (no script)
	HashHint  string
	Hash      string
	Review    bool
	Waiting   bool   // under review, waiting for an administrator
	Rejected  string // why the last submitted transaction was refused, worded
	Sandbox   bool   // the simulated transfer is offered
	Prefill   string // a simulated transfer's hash, for the form
	// State is the review's state (schema.USDTReviewOf) and StateText the
	// same in the payer's words; ReloadMS is when the page reloads itself
	// to show the next one (just after the reviewer's next check).
	State     string
	StateText string
	ReloadMS  int64
}

// rejectedText words a rejection: a reviewer's reason in the payer's
// language ("did not match" for those without words of their own), an
// administrator's text as written, quoted (html/template escapes it).
func rejectedText(l *Catalog, reason string) string {
	if !schema.MachineReviewReason(reason) {
		return l.T("usdt_rejected_admin", "Why", reason)
	}
	why := l.T("why_other")
	if l.Has("why_" + reason) {
		why = l.T("why_" + reason)
	}
	return l.T("usdt_rejected", "Why", why)
}

// Reloads of a page under review: soon after the next check, never more
// often than every 5 s nor less than every minute.
const (
	minReview = 5 * time.Second
	maxReview = time.Minute
)

// reviewText words the state of a review under way for the payer, and
// says when the page should look again.
func reviewText(l *Catalog, r *schema.USDTReviewView, now time.Time) (string, time.Duration) {
	// The next check is seconds or minutes away: its time of day; the
	// window's end is a day away: its date.
	when := func(s, layout string) string {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return s
		}
		return t.UTC().Format(layout)
	}
	reload := 15 * time.Second
	if t, err := time.Parse(time.RFC3339, r.NextCheckAt); err == nil {
		reload = min(max(t.Sub(now)+2*time.Second, minReview), maxReview)
	}
	next, until := when(r.NextCheckAt, "15:04:05 UTC"), when(r.CheckUntil, "2006-01-02 15:04 UTC")
	switch r.State {
	case schema.ReviewQueued, schema.ReviewChecking:
		return l.T("usdt_state_" + r.State), minReview
	case schema.ReviewNotFound, schema.ReviewRetrying:
		return l.T("usdt_state_"+r.State, "Next", next, "Until", until), reload
	case schema.ReviewConfirming:
		if r.ConfirmationsRequired > 0 {
			return l.T("usdt_state_confirming", "Have", r.Confirmations, "Need", r.ConfirmationsRequired, "Next", next), reload
		}
		return l.T("usdt_state_crediting", "Next", next), reload
	case schema.ReviewWaitingAdmin:
		return l.T("usdt_waiting_admin"), maxReview
	case schema.ReviewClosed:
		return l.T("usdt_state_closed"), 0
	}
	return "", 0
}

// usdtPage serves GET /payment/{id}/usdt-direct.
func (p *usdtStep) usdtPage(c *fiber.Ctx, v *view) error {
	o, err := p.usdtOrderOf(c)
	if err != nil {
		return err
	}
	return p.orderPage(c, v, o)
}

func (p *usdtStep) usdtOrderOf(c *fiber.Ctx) (*schema.Order, error) {
	o, err := p.orders.Reads.Order(c.UserContext(), c.Params("paymentId"))
	if err != nil {
		return nil, err
	}
	if o.Method != schema.MethodUSDTDirect {
		return nil, platform.Errorf(platform.KindNotFound, "order %s is not a USDT direct order", o.ID)
	}
	return o, nil
}

// usdtOrder renders a live usdt_direct order's step.
func (p *usdtStep) usdtOrder(c *fiber.Ctx, v *view, o *schema.Order) error {
	uv := usdtView{Payable: o.PayableAmount, Network: o.Network, Hash: o.TxHash, Review: o.NextAction == schema.NextUSDTReview,
		Waiting: o.Review == "waiting", Sandbox: o.Sandbox, Prefill: c.Query("simhash")}
	if o.Review == "rejected" && !uv.Review {
		uv.Rejected = rejectedText(v.L, o.ReviewReason)
	}
	if r := schema.USDTReviewOf(o); r != nil && uv.Review {
		var reload time.Duration
		uv.State = r.State
		uv.StateText, reload = reviewText(v.L, r, time.Now())
		uv.ReloadMS = reload.Milliseconds()
	}
	exp := p.orders.Reads.Expiry(o)
	uv.ExpiresMS = exp.UnixMilli()
	uv.Left = time.Until(exp).Round(time.Second).String()
	if uv.Network == "" || c.Query("change") == "1" && !uv.Review {
		uv.Network = ""
		uv.Networks = p.orders.USDT.USDTNetworks(o.Sandbox)
	}
	for _, n := range p.orders.USDT.USDTNetworks(o.Sandbox) {
		if n.Name == uv.Network {
			uv.Address = n.Address
		}
	}
	if uv.Network != "" {
		uv.QR = "/payment/" + url.PathEscape(o.ID) + "/usdt-qr.png"
		uv.HashHint = v.L.T("usdt_hash_hint_" + uv.Network)
	}
	p.withCSRF(c, v)
	if len(uv.Networks) > 0 {
		choosing(v)
	} else {
		p.withPoll(v)
	}
	v.Title, v.Data = v.L.T("usdt_title"), uv
	return p.render(c, fiber.StatusOK, "usdt", v)
}

// usdtPost serves the network form (action=network) and the hash form
// (action=hash).
func (p *usdtStep) usdtPost(c *fiber.Ctx, v *view) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	id := c.Params("paymentId")
	var err error
	action := c.FormValue("action")
	switch action {
	case "network":
		_, err = p.orders.USDT.ChooseUSDTNetwork(c.UserContext(), id, c.FormValue("network"))
	case "hash":
		_, err = p.orders.USDT.SubmitTxHash(c.UserContext(), id, c.FormValue("txhash"))
	case "simulate":
		var hash string
		if hash, err = p.orders.USDT.SimulateUSDTTransfer(c.UserContext(), id); err == nil {
			p.m.done("usdt_simulate", nil)
			return p.redirect(c, v.Prefix+"/payment/"+url.PathEscape(id)+"/usdt-direct?simhash="+url.QueryEscape(hash))
		}
	default:
		err = platform.Errorf(platform.KindInvalidParameter, "unknown action %q", action)
		action = "invalid" // a label value is one of a known few, never what a form sent
	}
	p.m.done("usdt_"+action, err)
	if err != nil {
		return err
	}
	return p.redirect(c, v.Prefix+"/payment/"+url.PathEscape(id)+"/usdt-direct")
}

// usdtQR is the chosen network's receiving address as a QR code.
func (p *usdtStep) usdtQR(c *fiber.Ctx) error {
	o, err := p.usdtOrderOf(c)
	if err != nil {
		return err
	}
	addr := ""
	for _, n := range p.orders.USDT.USDTNetworks(o.Sandbox) {
		if n.Name == o.Network {
			addr = n.Address
		}
	}
	if addr == "" || !o.Status.Live() {
		return platform.Errorf(platform.KindNotFound, "no address to show for order %s", o.ID)
	}
	png, err := qrcode.Encode(addr, qrcode.Medium, 256)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, max-age=60")
	c.Type("png")
	return c.Send(png)
}
