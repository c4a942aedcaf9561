package schema

import "net/url"

// Next actions of SPEC.md: the choice a payer makes before paying.
const (
	NextMethodSelect    = "payment_method_select"
	NextFiatpspSelect   = "fiatpsp_select"
	NextCryptopspSelect = "cryptopsp_select"
	NextUSDTDirectPay   = "usdt_direct_pay"
)

// Links are the payer-facing addresses of an order. They are derived from the
// public base URL and the order rather than stored, so a changed base URL
// moves every order's links and the Redis hash stays small.
type Links struct {
	RedirectURL string
	SelectURL   string
	QRImageURL  string
}

// OrderLinks follows SPEC.md: a provider's checkout address when it gave one,
// else the selection step, else the gateway page; QR methods also get the
// image of their payment code.
func OrderLinks(o *Order, base string) Links {
	page := base + "/payment/" + url.PathEscape(o.ID)
	var l Links
	switch o.NextAction {
	case NextMethodSelect, NextFiatpspSelect, NextCryptopspSelect:
		prefix := base
		if o.Lang != "" && o.Lang != "en" {
			prefix += "/" + o.Lang
		}
		step := "select"
		if o.NextAction != NextMethodSelect {
			step = o.NextAction
		}
		l.SelectURL = prefix + "/payment/" + url.PathEscape(o.ID) + "?step=" + step
	case NextUSDTDirectPay, NextUSDTReview:
		l.SelectURL = page + "/usdt-direct"
	}
	switch {
	case o.ProviderURL != "":
		l.RedirectURL = o.ProviderURL
	case l.SelectURL != "":
		l.RedirectURL = l.SelectURL
	case o.Method != MethodBalance:
		l.RedirectURL = page
	}
	if o.Method.HasQR() && o.QRPayload != "" {
		l.QRImageURL = page + "/qr.png"
	}
	return l
}

// MerchantRedirect is SPEC.md's rule for where the merchant sends the payer.
func (l Links) MerchantRedirect(base, id string) string {
	switch {
	case l.RedirectURL != "":
		return l.RedirectURL
	case l.SelectURL != "":
		return l.SelectURL
	}
	return base + "/payment/" + url.PathEscape(id)
}

// OrderView is the order object merchants read from GET /api/order.
type OrderView struct {
	PaymentID       string  `json:"paymentId"`
	OrderID         string  `json:"orderId"`
	Status          int     `json:"status"`
	StatusStr       string  `json:"status_str"`
	Amount          string  `json:"amount"` // two decimals, like create and the webhook
	Currency        string  `json:"currency"`
	PaymentMethod   string  `json:"paymentMethod"`
	Description     string  `json:"description,omitempty"`
	ClientOrderID   string  `json:"clientOrderId,omitempty"`
	NotifyURL       string  `json:"notify_url,omitempty"`
	ReturnURL       string  `json:"return_url,omitempty"`
	CreatedAt       string  `json:"createdAt"`
	CompletedTime   string  `json:"completedTime,omitempty"`
	RedirectURL     string  `json:"redirectUrl,omitempty"`
	SelectURL       string  `json:"selectUrl,omitempty"`
	NextAction      string  `json:"nextAction,omitempty"`
	PayableAmount   string  `json:"payableAmount,omitempty"`
	QRImageURL      *string `json:"qrImageUrl"`
	PaidWithBalance bool    `json:"paidWithBalance"`
	Sandbox         bool    `json:"sandbox"`
	// The provider's charge when it differs from the order's amount, and the
	// rate it was converted at (recorded once, at initialisation).
	ChargeAmount   string `json:"chargeAmount,omitempty"`
	ChargeCurrency string `json:"chargeCurrency,omitempty"`
	FXRate         string `json:"fxRate,omitempty"`
	PayCurrency    string `json:"payCurrency,omitempty"`
	// What succeeded refunds gave back, once there is any; Refunds only in
	// action=order (WithRefunds), oldest first.
	RefundedAmount string       `json:"refundedAmount,omitempty"`
	Refunds        []RefundView `json:"refunds,omitempty"`
	// USDTReview is a usdt_direct order's review once a transaction was
	// submitted: its state and reason (an administrator's rejection text
	// as the payer reads it). Live orders only: ClickHouse keeps none.
	USDTReview *USDTReviewView `json:"usdtReview,omitempty"`
}

// WithRefunds adds the order's refunds to its view.
func (v OrderView) WithRefunds(rs []Refund) OrderView {
	for i := range rs {
		v.Refunds = append(v.Refunds, ViewRefund(&rs[i]))
	}
	return v
}

// View renders the order for merchants.
func View(o *Order, base string) OrderView {
	l := OrderLinks(o, base)
	v := OrderView{
		PaymentID: o.ID, OrderID: o.ID, Status: int(o.Status), StatusStr: o.Status.String(),
		Amount: o.Amount.String(), Currency: o.Currency, PaymentMethod: string(o.Method),
		Description: o.Description, ClientOrderID: o.ClientOrderID, NotifyURL: o.NotifyURL,
		ReturnURL: o.ReturnURL, CreatedAt: WireTime(o.CreatedAt), CompletedTime: WireTime(o.CompletedAt),
		RedirectURL: l.RedirectURL, SelectURL: l.SelectURL, NextAction: o.NextAction,
		PayableAmount: o.PayableAmount, PaidWithBalance: o.PaidWithBalance, Sandbox: o.Sandbox,
	}
	if l.QRImageURL != "" {
		v.QRImageURL = &l.QRImageURL
	}
	if o.ChargeCurrency != "" {
		v.ChargeAmount, v.ChargeCurrency, v.FXRate = o.ChargeAmount.String(), o.ChargeCurrency, o.FXRate
	}
	v.PayCurrency = o.PayCurrency
	v.USDTReview = USDTReviewOf(o)
	if o.Refunded != 0 {
		v.RefundedAmount = o.Refunded.String()
	}
	return v
}
