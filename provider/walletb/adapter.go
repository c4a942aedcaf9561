package walletb

import (
	"bytes"
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
	"github.com/paygate/gateway/schema"
)

// Adapter speaks wallet_b's protocol for one merchant account.
type Adapter struct {
	cfg    Config
	caller *provider.Caller
	key    *rsa.PrivateKey
	keys   *keyring // the platform keys, by serial
	v      verifier
	apiv3  []byte
}

var _ provider.Adapter = (*Adapter)(nil)

// New builds the adapter; the configuration must validate.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if caller == nil {
		return nil, errors.New("wallet_b: no caller")
	}
	priv, configured, err := cfg.keys()
	if err != nil {
		return nil, err
	}
	a := &Adapter{cfg: cfg, caller: caller, key: priv, apiv3: []byte(cfg.APIv3Key)}
	a.keys = &keyring{configured: configured, refresh: cfg.PlatformCertRefresh.D(), gap: cfg.PlatformCertGap.D(),
		now: cfg.Now, fetch: a.fetchCertificates, lastFetch: cfg.Now()}
	a.v = verifier{keys: a.keys, maxSkew: cfg.MaxSkew.D(), now: cfg.Now}
	return a, nil
}

// API paths, under Config.BaseURL.
const (
	PathNative = "/v3/pay/transactions/native"
	PathQuery  = "/v3/pay/transactions/out-trade-no/"
)

// ProviderZone is the provider's clock for time_expire: UTC+8.
var ProviderZone = time.FixedZone("UTC+8", 8*60*60)

const (
	MaxOrderID     = 64
	maxDescription = 127 // runes
)

// NativeOrder is the body of the native (QR) transaction call.
type NativeOrder struct {
	AppID       string      `json:"appid"`
	MchID       string      `json:"mchid"`
	Description string      `json:"description"`
	OutTradeNo  string      `json:"out_trade_no"`
	TimeExpire  string      `json:"time_expire,omitempty"`
	NotifyURL   string      `json:"notify_url"`
	Amount      orderAmount `json:"amount"`
}

type orderAmount struct {
	Total    int64  `json:"total"`
	Currency string `json:"currency"`
}

// Initialise creates the native transaction for Payment.Charge (integer
// minor units, in its currency) and returns its code_url. Ref is our order
// id: the provider's transaction id exists only once the payer pays, and it
// knows the transaction by out_trade_no until then.
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if err := checkPayment(p); err != nil {
		return provider.Init{}, err
	}
	order := NativeOrder{
		AppID: a.cfg.AppID, MchID: a.cfg.MerchantID, Description: wire.Subject(p, maxDescription), OutTradeNo: p.OrderID,
		NotifyURL: p.NotifyURL, Amount: orderAmount{Total: int64(p.Charge.Amount), Currency: p.Charge.Currency},
	}
	if !p.ExpiresAt.IsZero() {
		order.TimeExpire = p.ExpiresAt.In(ProviderZone).Format(time.RFC3339)
	}
	body, err := json.Marshal(order)
	if err != nil {
		return provider.Init{}, fmt.Errorf("wallet_b native: %w", err)
	}
	ans, err := a.call(ctx, "native", false, http.MethodPost, PathNative, body)
	if err != nil {
		return provider.Init{}, err
	}
	if ans.Status != http.StatusOK {
		return provider.Init{}, refusal("native", ans)
	}
	var res struct {
		CodeURL string `json:"code_url"`
	}
	if err := json.Unmarshal(ans.Body, &res); err != nil || res.CodeURL == "" || len(res.CodeURL) > 2048 {
		return provider.Init{}, fmt.Errorf("wallet_b native answer has no code_url: %w", provider.ErrRefused)
	}
	return provider.Init{QRPayload: res.CodeURL, Ref: p.OrderID}, nil
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
	if p.NotifyURL == "" {
		errs = append(errs, errors.New("no notify URL"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("wallet_b initialise: %w", errors.Join(errs...))
	}
	return nil
}

// Query asks for the transaction by our order id (idempotent).
func (a *Adapter) Query(ctx context.Context, orderID, _ string) (provider.Notification, error) {
	pq := PathQuery + url.PathEscape(orderID) + "?mchid=" + url.QueryEscape(a.cfg.MerchantID)
	ans, err := a.call(ctx, "query", true, http.MethodGet, pq, nil)
	if err != nil {
		return provider.Notification{}, err
	}
	if ans.Status != http.StatusOK {
		return provider.Notification{}, refusal("query", ans)
	}
	n, err := a.transaction(ans.Body)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_b query answer: %w", err)
	}
	if n.OrderID != orderID {
		return provider.Notification{}, fmt.Errorf("wallet_b query answered for another order: %w", provider.ErrMalformed)
	}
	return n, nil
}

// refusal is the error of a 4xx answer: ErrNotFound for an order the
// provider does not know, else ErrRefused with the provider's code.
func refusal(call string, ans provider.Answer) error {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(ans.Body, &e)
	if ans.Status == http.StatusNotFound && e.Code == "ORDER_NOT_EXIST" {
		return fmt.Errorf("wallet_b %s: %w", call, provider.ErrNotFound)
	}
	return fmt.Errorf("wallet_b %s: HTTP %d %s %s: %w", call, ans.Status, e.Code, e.Message, provider.ErrRefused)
}

// call sends one call with our Authorization header and verifies the
// answer's signature (any status: the provider signs its refusals too).
func (a *Adapter) call(ctx context.Context, name string, idempotent bool, method, pathQuery string, body []byte) (provider.Answer, error) {
	ans, err := a.send(ctx, name, idempotent, method, pathQuery, body)
	if err != nil {
		return provider.Answer{}, err
	}
	if err := a.v.verify(ctx, readSigHeaders(ans.Header, a.cfg.HeaderPrefix), ans.Body); err != nil {
		return provider.Answer{}, fmt.Errorf("wallet_b %s answer: %w", name, err)
	}
	return ans, nil
}

// send sends one call with our Authorization header; the answer is not
// verified yet.
func (a *Adapter) send(ctx context.Context, name string, idempotent bool, method, pathQuery string, body []byte) (provider.Answer, error) {
	full := strings.TrimRight(a.cfg.BaseURL, "/") + pathQuery
	ans, err := a.caller.Do(ctx, name, idempotent, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, method, full, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		auth, err := Authorization(a.cfg.AuthScheme, a.cfg.MerchantID, a.cfg.MerchantSerial, a.key,
			method, req.URL.RequestURI(), a.cfg.Now(), body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", auth)
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, nil
	})
	if err != nil {
		return provider.Answer{}, err
	}
	return ans, nil
}

// transaction maps a transaction's JSON (a query answer or a decrypted
// notification resource) to a Notification.
func (a *Adapter) transaction(plain []byte) (provider.Notification, error) {
	var tx Transaction
	if err := json.Unmarshal(plain, &tx); err != nil {
		return provider.Notification{}, fmt.Errorf("transaction: %w", errors.Join(provider.ErrMalformed, err))
	}
	if tx.MchID != a.cfg.MerchantID {
		return provider.Notification{}, fmt.Errorf("transaction of merchant %q, not ours: %w", tx.MchID, provider.ErrMalformed)
	}
	return tx.notification()
}

// Transaction is the provider's transaction, as a query answers it and a
// notification's resource holds it.
type Transaction struct {
	MchID          string `json:"mchid"`
	AppID          string `json:"appid"`
	OutTradeNo     string `json:"out_trade_no"`
	TransactionID  string `json:"transaction_id"`
	TradeType      string `json:"trade_type"`
	TradeState     string `json:"trade_state"`
	TradeStateDesc string `json:"trade_state_desc,omitempty"`
	SuccessTime    string `json:"success_time,omitempty"`
	Amount         struct {
		Total         int64  `json:"total"`
		PayerTotal    int64  `json:"payer_total"`
		Currency      string `json:"currency"`
		PayerCurrency string `json:"payer_currency"`
	} `json:"amount"`
}

// notification maps the trade state. Only SUCCESS is paid, for
// amount.total (integer minor units, exact) in amount.currency.
func (tx Transaction) notification() (provider.Notification, error) {
	n := provider.Notification{OrderID: tx.OutTradeNo, Ref: tx.TransactionID, Fields: tx.fields()}
	if n.OrderID == "" || len(n.OrderID) > MaxOrderID || len(n.Ref) > MaxOrderID {
		return n, fmt.Errorf("out_trade_no or transaction_id missing or too long: %w", provider.ErrMalformed)
	}
	switch tx.TradeState {
	case "SUCCESS":
		paid, err := tx.paid()
		if err != nil {
			return n, err
		}
		n.Outcome, n.Paid = provider.OutcomePaid, paid
	case "NOTPAY", "USERPAYING":
		n.Outcome = provider.OutcomePending
	case "PAYERROR":
		n.Outcome = provider.OutcomeFailed
	case "REVOKED":
		n.Outcome = provider.OutcomeCancelled
	case "CLOSED":
		n.Outcome = provider.OutcomeExpired
	case "REFUND":
		n.Outcome = provider.OutcomeRefunded
	default:
		return n, fmt.Errorf("trade_state %q: %w", tx.TradeState, provider.ErrMalformed)
	}
	return n, nil
}

func (tx Transaction) paid() (provider.Money, error) {
	total, cur := schema.Amount(tx.Amount.Total), tx.Amount.Currency
	if cur == "" {
		cur = "CNY" // the provider's default currency
	}
	switch {
	case tx.TransactionID == "":
		return provider.Money{}, fmt.Errorf("paid transaction without transaction_id: %w", provider.ErrMalformed)
	case total <= 0 || total > schema.MaxAmount:
		return provider.Money{}, fmt.Errorf("amount.total %d: %w", tx.Amount.Total, provider.ErrMalformed)
	case !decimal.Currency(cur):
		return provider.Money{}, fmt.Errorf("amount.currency %q: %w", cur, provider.ErrMalformed)
	}
	return provider.Money{Amount: total, Currency: cur}, nil
}

// fields are what support sees of the transaction; the payer's identity
// is left out.
func (tx Transaction) fields() map[string]string {
	f := map[string]string{
		"mchid": tx.MchID, "appid": tx.AppID, "out_trade_no": tx.OutTradeNo, "transaction_id": tx.TransactionID,
		"trade_type": tx.TradeType, "trade_state": tx.TradeState, "trade_state_desc": tx.TradeStateDesc,
		"success_time": tx.SuccessTime, "amount.currency": tx.Amount.Currency,
		"amount.total": fmt.Sprint(tx.Amount.Total), "amount.payer_total": fmt.Sprint(tx.Amount.PayerTotal),
	}
	for k, v := range f {
		if v == "" {
			delete(f, k)
		}
	}
	return f
}
