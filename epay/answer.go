package epay

import (
	"context"
	"net/url"
	"strings"

	"github.com/paygate/gateway/schema"
)

// PayAnswer is mapi.php's success: code 1, our order id as trade_no, and
// one of payurl (a page to send the payer to), qrcode (what to show as a
// QR code) or urlscheme (an app's link), as the protocol defines them.
type PayAnswer struct {
	Code      int    `json:"code"`
	Msg       string `json:"msg"`
	TradeNo   string `json:"trade_no"`
	PayURL    string `json:"payurl,omitempty"`
	QRCode    string `json:"qrcode,omitempty"`
	URLScheme string `json:"urlscheme,omitempty"`
}

// DevicePC is device's default: a desktop browser, which shows a QR code
// to scan with a phone when the order has one.
const DevicePC = "pc"

// Answer is o as mapi.php answers it for device: a QR code's content to a
// desktop when the method pays by scanning, an app's link when the
// provider gave one that is not a web page, else the page the payer goes
// to (ours, or the provider's).
func Answer(o *schema.Order, base, device string) PayAnswer {
	a := PayAnswer{Code: CodeOK, Msg: "succ", TradeNo: o.ID}
	if device == "" {
		device = DevicePC
	}
	switch {
	case device == DevicePC && o.Method.HasQR() && o.QRPayload != "":
		a.QRCode = o.QRPayload
	case o.ProviderURL != "" && !webURL(o.ProviderURL):
		a.URLScheme = o.ProviderURL
	default:
		a.PayURL = schema.OrderLinks(o, base).MerchantRedirect(base, o.ID)
	}
	return a
}

func webURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// Payer is where submit.php sends the payer: the order's page, its select
// page when no type was given, or the provider's page.
func Payer(o *schema.Order, base string) string {
	return schema.OrderLinks(o, base).MerchantRedirect(base, o.ID)
}

// TradeSuccess is trade_status in a paid order's notification.
const TradeSuccess = "TRADE_SUCCESS"

// NotifyParams are a paid order's notification parameters, sign and
// sign_type aside: pid, trade_no (our order id), out_trade_no, type, name,
// money with two decimals, trade_status and, when the merchant sent one,
// param as it was sent. Empty values are left out, as the protocol's
// sender does. word is the order's type word (TypeWord).
func NotifyParams(o *schema.Order, word string) Params {
	p := Params{"pid": o.AppID, "trade_no": o.ID, "out_trade_no": o.ClientOrderID, "type": word,
		"name": o.Description, "money": o.Amount.String(), "trade_status": TradeSuccess, "param": o.DoorParam}
	for k, v := range p {
		if v == "" {
			delete(p, k)
		}
	}
	return p
}

// TypeWord is the word a notification names the order's type by: the one
// the merchant sent, or, when the payer chose on our page, the first word
// the operator maps to the method paid with ("" when none does).
func TypeWord(ctx context.Context, o *schema.Order, types TypeSource) string {
	if o.DoorType != "" || types == nil {
		return o.DoorType
	}
	t, err := types.Types(ctx)
	if err != nil {
		return ""
	}
	w, _ := t.Word(o.Method)
	return w
}

// SignedQuery is p with its sign (key's) and sign_type=MD5, as a query
// string: what the notification's GET and the return to return_url carry.
func SignedQuery(p Params, key string) string {
	q := make(url.Values, len(p)+2)
	for k, v := range p {
		q.Set(k, v)
	}
	q.Set("sign", Sign(p, key))
	q.Set("sign_type", "MD5")
	return q.Encode()
}

// WithQuery appends query to raw with the separator raw needs: '&' when
// it has a query already, '?' otherwise, as the protocol's sender does.
func WithQuery(raw, query string) string {
	if strings.Contains(raw, "?") {
		if strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "&") {
			return raw + query
		}
		return raw + "&" + query
	}
	return raw + "?" + query
}

// ReturnURL is where the payer of a paid order goes back to: return_url
// with the notification's signed parameters, so the merchant's return page
// can verify what it shows.
func ReturnURL(o *schema.Order, key, word string) string {
	return WithQuery(o.ReturnURL, SignedQuery(NotifyParams(o, word), key))
}
