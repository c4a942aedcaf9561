package walleta

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// Adapter speaks wallet_a's protocol for one account.
type Adapter struct {
	cfg         Config
	caller      *provider.Caller
	appKey      *rsa.PrivateKey
	providerKey *rsa.PublicKey
	certs       credentials // the serials, in certificate mode
	now         func() time.Time
}

var _ provider.Adapter = (*Adapter)(nil)

// New builds the adapter; the configuration must validate.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if caller == nil {
		return nil, errors.New("wallet_a: no caller")
	}
	cr, err := cfg.credentials()
	if err != nil {
		return nil, err
	}
	return &Adapter{cfg: cfg, caller: caller, appKey: cr.appKey, providerKey: cr.providerKey, certs: cr, now: time.Now}, nil
}

// ProviderZone is the provider's clock: its timestamps are UTC+8 wall time.
var ProviderZone = time.FixedZone("UTC+8", 8*60*60)

const TimeLayout = "2006-01-02 15:04:05"

// Bounds of what we send: the provider's own limits.
const (
	MaxOrderID = 64
	maxSubject = 128 // runes
)

// PrecreateBiz is the precreate call's business content.
type PrecreateBiz struct {
	OutTradeNo    string `json:"out_trade_no"`
	TotalAmount   string `json:"total_amount"`
	Subject       string `json:"subject"`
	TransCurrency string `json:"trans_currency,omitempty"`
	TimeExpire    string `json:"time_expire,omitempty"`
}

// Initialise precreates the trade and returns its QR payload. The amount is
// Payment.Charge as the command side decided it: CNY as is; another currency
// is named in trans_currency, which the provider echoes in its notification.
// Ref is our order id: the provider creates its own trade id only when the
// payer scans, and knows the trade by out_trade_no until then.
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if err := checkPayment(p); err != nil {
		return provider.Init{}, err
	}
	biz := PrecreateBiz{OutTradeNo: p.OrderID, TotalAmount: p.Charge.Amount.String(), Subject: wire.Subject(p, maxSubject)}
	if p.Charge.Currency != "CNY" {
		biz.TransCurrency = p.Charge.Currency
	}
	if !p.ExpiresAt.IsZero() {
		biz.TimeExpire = p.ExpiresAt.In(ProviderZone).Format(TimeLayout)
	}
	node, err := a.call(ctx, "precreate", false, "trade.precreate", biz, p.NotifyURL)
	if err != nil {
		return provider.Init{}, err
	}
	var res struct {
		OutTradeNo string `json:"out_trade_no"`
		QRCode     string `json:"qr_code"`
	}
	if err := json.Unmarshal(node, &res); err != nil {
		return provider.Init{}, fmt.Errorf("wallet_a precreate answer: %w", errors.Join(provider.ErrRefused, err))
	}
	if res.OutTradeNo != p.OrderID || res.QRCode == "" || len(res.QRCode) > 2048 {
		return provider.Init{}, fmt.Errorf("wallet_a precreate answer has no QR code for the order: %w", provider.ErrRefused)
	}
	return provider.Init{QRPayload: res.QRCode, Ref: p.OrderID}, nil
}

func checkPayment(p provider.Payment) error {
	var errs []error
	if p.OrderID == "" || len(p.OrderID) > MaxOrderID {
		errs = append(errs, errors.New("order id must be 1 to 64 bytes"))
	}
	if p.Charge.Amount <= 0 {
		errs = append(errs, errors.New("charge must be positive"))
	}
	if !decimal.Currency(p.Charge.Currency) {
		errs = append(errs, fmt.Errorf("charge currency %q is not a currency code", p.Charge.Currency))
	}
	if len(errs) > 0 {
		return fmt.Errorf("wallet_a initialise: %w", errors.Join(errs...))
	}
	return nil
}

// Query asks for the trade by our order id (idempotent). Until the payer
// scans, the provider knows no trade: that is ErrNotFound.
func (a *Adapter) Query(ctx context.Context, orderID, _ string) (provider.Notification, error) {
	node, err := a.call(ctx, "query", true, "trade.query", map[string]string{"out_trade_no": orderID}, "")
	if err != nil {
		return provider.Notification{}, err
	}
	fields, err := stringFields(node)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_a query answer: %w", errors.Join(provider.ErrRefused, err))
	}
	n, err := toNotification(fields)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_a query answer: %w", err)
	}
	if n.OrderID != orderID {
		return provider.Notification{}, fmt.Errorf("wallet_a query answered for another order: %w", provider.ErrMalformed)
	}
	n.Fields = fields
	return n, nil
}

// stringFields keeps the string members of an answer node, the shape a
// notification's fields have.
func stringFields(node []byte) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(node, &raw); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		}
	}
	return out, nil
}

// CodeSuccess is the code of an answer that did what was asked.
const CodeSuccess = "10000"

// call sends one signed API call and returns the answer's response node,
// its signature verified. A refusal by the provider is ErrRefused, a trade
// it does not know ErrNotFound.
func (a *Adapter) call(ctx context.Context, name string, idempotent bool, method string, biz any, notifyURL string) (json.RawMessage, error) {
	method = a.cfg.MethodPrefix + method
	body, err := a.signedForm(method, biz, notifyURL)
	if err != nil {
		return nil, err
	}
	ans, err := a.caller.Do(ctx, name, idempotent, wire.Request(http.MethodPost, a.cfg.BaseURL, []byte(body),
		"Content-Type", "application/x-www-form-urlencoded;charset=utf-8"))
	if err != nil {
		return nil, err
	}
	if ans.Status != http.StatusOK {
		return nil, fmt.Errorf("wallet_a %s answered HTTP %d: %w", name, ans.Status, provider.ErrRefused)
	}
	return a.openAnswer(name, method, ans.Body)
}

// signedForm is the call's form body: the common parameters, the business
// content as JSON, and the RSA2 sign over all of them.
func (a *Adapter) signedForm(method string, biz any, notifyURL string) (string, error) {
	content, err := json.Marshal(biz)
	if err != nil {
		return "", fmt.Errorf("wallet_a %s: encode business content: %w", method, err)
	}
	params := map[string]string{
		"app_id": a.cfg.AppID, "method": method, "format": "JSON", "charset": "utf-8",
		"sign_type": SignType, "timestamp": a.now().In(ProviderZone).Format(TimeLayout), "version": "1.0",
		"notify_url": notifyURL, "biz_content": string(content),
	}
	if a.cfg.CertMode() {
		params["app_cert_sn"] = a.certs.appCertSN
		params[a.cfg.CertParamPrefix+"root_cert_sn"] = a.certs.rootCertSN
	}
	sig, err := SignFields(a.appKey, RequestBase(params))
	if err != nil {
		return "", fmt.Errorf("wallet_a %s: %w", method, err)
	}
	params["sign"] = sig
	form := url.Values{}
	for k, v := range params {
		if v != "" {
			form.Set(k, v)
		}
	}
	return form.Encode(), nil
}

// answerCommon is what every response node carries.
type answerCommon struct {
	Code    string `json:"code"`
	Msg     string `json:"msg"`
	SubCode string `json:"sub_code"`
	SubMsg  string `json:"sub_msg"`
}

// openAnswer finds the response node ("<method with _>_response"), checks
// its code and, for a success, its signature.
func (a *Adapter) openAnswer(name, method string, body []byte) (json.RawMessage, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("wallet_a %s answer: %w", name, errors.Join(provider.ErrRefused, err))
	}
	node, ok := env[strings.ReplaceAll(method, ".", "_")+"_response"]
	if !ok {
		node, ok = env["error_response"]
	}
	var common answerCommon
	if !ok || json.Unmarshal(node, &common) != nil {
		return nil, fmt.Errorf("wallet_a %s answer has no response node: %w", name, provider.ErrRefused)
	}
	if common.Code != CodeSuccess {
		if common.SubCode == "ACQ.TRADE_NOT_EXIST" {
			return nil, fmt.Errorf("wallet_a %s: %w", name, provider.ErrNotFound)
		}
		return nil, fmt.Errorf("wallet_a %s: code %s %s %s: %w", name, common.Code, common.SubCode, common.SubMsg, provider.ErrRefused)
	}
	var sig string
	if raw, ok := env["sign"]; ok {
		_ = json.Unmarshal(raw, &sig)
	}
	if err := verifyAnswer(a.providerKey, node, sig); err != nil {
		return nil, fmt.Errorf("wallet_a %s: %w%s", name, err, a.otherCert(env))
	}
	return node, nil
}

// otherCert explains an answer that does not verify in certificate mode
// when it names another provider certificate than ours: the provider has
// moved to a new certificate, which the operator must configure.
func (a *Adapter) otherCert(env map[string]json.RawMessage) string {
	var sn string
	if !a.cfg.CertMode() || json.Unmarshal(env[a.cfg.CertParamPrefix+"cert_sn"], &sn) != nil || sn == a.certs.providerCertSN {
		return ""
	}
	return fmt.Sprintf(" (signed with provider certificate %.32q, ours is %q: configure its new certificate)", sn, a.certs.providerCertSN)
}
