package walleta

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/url"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/walleta"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/rsakey"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is the simulator's side of the sandbox: its own public base
// (for the page URLs it hands out) and the counterpart credentials.
type SimConfig struct {
	BaseURL               string
	AppID                 string // the app it accepts calls from
	AppPublicKeyPEM       string // checks the calls' signatures
	ProviderPrivateKeyPEM string // signs answers and notifications
	MethodPrefix          string
	// Certificate mode (when AppCertSN is set): the serials every call must
	// carry (app_cert_sn and CertParamPrefix+"root_cert_sn"), and the
	// provider certificate's, named in every answer as
	// CertParamPrefix+"cert_sn".
	AppCertSN, RootCertSN, ProviderCertSN string
	CertParamPrefix                       string
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the simulator with the sandbox credentials, the
// counterpart of SandboxConfig.
func SandboxSimConfig(baseURL string) SimConfig {
	return SimConfig{
		BaseURL:               baseURL,
		AppID:                 family.SandboxAppID,
		AppPublicKeyPEM:       family.SandboxAppPublicPEM,
		ProviderPrivateKeyPEM: family.SandboxProviderPrivatePEM,
	}
}

// Simulator answers wallet_a's API for the sandbox and plays the payer's
// wallet: a page per trade where a tester pays or fails, after which it
// notifies the trade's notify_url signed with its provider key.
type Simulator struct {
	cfg     SimConfig
	state   provider.State
	n       *provider.Notifier
	log     *slog.Logger
	appKey  *rsa.PublicKey
	signKey *rsa.PrivateKey
	err     error // a key that did not parse: every route answers 500
	code    *simkit.CodePage[trade]
	faults  *sandbox.FaultSwitch
}

// NewSimulator builds the simulator. A key in cfg that does not parse is
// logged and makes every call fail, rather than stopping the gateway.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	if log == nil {
		log = slog.Default()
	}
	s := &Simulator{cfg: cfg, state: state, n: n, log: log}
	var errA, errP error
	s.appKey, errA = rsakey.ParsePublic(cfg.AppPublicKeyPEM)
	s.signKey, errP = rsakey.ParsePrivate(cfg.ProviderPrivateKeyPEM)
	if err := errors.Join(errA, errP); err != nil {
		s.err = fmt.Errorf("wallet_a simulator keys: %w", err)
		log.Error("wallet_a simulator unusable", "err", s.err)
	}
	s.code = s.codePage()
	s.faults = sandbox.NewFaultSwitch(state, cfg.BaseURL, log)
	return s
}

// Register mounts the simulator's routes: POST /gateway (the API: precreate,
// query and refund), GET and POST /qr/:token (the scanned code's page).
func (s *Simulator) Register(r fiber.Router) {
	r.Post("/gateway", s.api)
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
	s.code.Register(r)
}

// tradeTTL keeps a simulated trade as long as the provider retries.
const tradeTTL = 48 * time.Hour

// trade is a simulated trade as the simulator keeps it.
type trade struct {
	OutTradeNo    string    `json:"out_trade_no"`
	TradeNo       string    `json:"trade_no"`
	Token         string    `json:"token"`
	TotalAmount   string    `json:"total_amount"`
	TransCurrency string    `json:"trans_currency,omitempty"`
	Subject       string    `json:"subject"`
	Passback      string    `json:"passback_params,omitempty"`
	NotifyURL     string    `json:"notify_url,omitempty"`
	Status        string    `json:"status"` // empty until the payer scans
	Created       time.Time `json:"created"`
	Settled       time.Time `json:"settled,omitzero"`
	// Refunds by out_request_no (the amount), and their total.
	Refunds  map[string]string `json:"refunds,omitempty"`
	Refunded string            `json:"refunded,omitempty"`
}

func tradeKey(outTradeNo string) string { return "sim:" + family.Family + ":trade:" + outTradeNo }
func tokenKey(token string) string      { return "sim:" + family.Family + ":qr:" + token }

func (s *Simulator) load(ctx context.Context, outTradeNo string) (trade, error) {
	t, err := simkit.Load[trade](ctx, s.state, tradeKey(outTradeNo))
	if err != nil {
		return trade{}, fmt.Errorf("wallet_a simulator trade: %w", err)
	}
	return t, nil
}

func (s *Simulator) save(ctx context.Context, t trade) error {
	if err := simkit.Save(ctx, s.state, tradeKey(t.OutTradeNo), t, tradeTTL); err != nil {
		return fmt.Errorf("wallet_a simulator trade: %w", err)
	}
	return nil
}

// node is an answer's response node; a map so that it is encoded with
// sorted keys and without the members a refusal lacks.
type node map[string]string

func refusal(code, msg, subCode, subMsg string) node {
	return node{"code": code, "msg": msg, "sub_code": subCode, "sub_msg": subMsg}
}

// restricted is the provider's answer to a call of a merchant account it
// has blocked (the sandbox's restricted fault).
func restricted() node {
	return businessFailed("ACQ.SELLER_BEEN_BLOCKED", "商家账号被冻结")
}

func invalidArguments(subCode, subMsg string) node {
	return refusal("40002", "Invalid Arguments", subCode, subMsg)
}

func businessFailed(subCode, subMsg string) node {
	return refusal("40004", "Business Failed", subCode, subMsg)
}

// api is the provider's gateway address: one form POST per call, the call
// named by method, our signature checked before anything else.
func (s *Simulator) api(c *fiber.Ctx) error {
	if s.err != nil {
		return c.SendStatus(fiber.StatusInternalServerError)
	}
	params, err := callParams(string(c.Request().URI().QueryString()), string(c.Body()))
	method := params["method"]
	if err != nil {
		return s.answer(c, "", invalidArguments("isv.invalid-parameter", err.Error()))
	}
	if refused := s.checkCall(params); refused != nil {
		return s.answer(c, method, refused)
	}
	switch method {
	case s.cfg.MethodPrefix + "trade.precreate":
		if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error { return s.answer(c, method, restricted()) }); done {
			return err
		}
		return s.answer(c, method, s.precreate(c.UserContext(), params))
	case s.cfg.MethodPrefix + "trade.query":
		return s.answer(c, method, s.query(c.UserContext(), params["biz_content"]))
	case s.cfg.MethodPrefix + "trade.refund":
		return s.answer(c, method, s.refund(c.UserContext(), params["biz_content"]))
	default:
		return s.answer(c, "", invalidArguments("isv.invalid-method", "unknown method"))
	}
}

// callParams merges a call's parameters: the provider's gateway takes the
// common ones (app_id, method, sign, ...) from the query string, where its
// SDKs put them, or from the form body, and biz_content from either. A
// parameter given in both places with two values is refused rather than
// one of them picked.
func callParams(query, body string) (map[string]string, error) {
	q, errQ := url.ParseQuery(query)
	f, errF := url.ParseQuery(body)
	if errQ != nil || errF != nil {
		return map[string]string{}, errors.New("query or form does not parse")
	}
	params := map[string]string{}
	for _, vals := range []url.Values{f, q} {
		for k, v := range vals {
			if old, ok := params[k]; ok && old != v[0] {
				return params, fmt.Errorf("%s given twice", k)
			}
			params[k] = v[0]
		}
	}
	return params, nil
}

// checkCall is what the provider checks of every call: our app, the
// scheme, the time stamp's form and the RSA2 signature.
func (s *Simulator) checkCall(p map[string]string) node {
	switch {
	case p["app_id"] != s.cfg.AppID:
		return invalidArguments("isv.invalid-app-id", "unknown app_id")
	case p["sign_type"] != family.SignType:
		return invalidArguments("isv.invalid-signature-type", "sign_type must be RSA2")
	case p["biz_content"] == "":
		return invalidArguments("isv.missing-biz-content", "biz_content is missing")
	}
	if s.cfg.AppCertSN != "" {
		switch {
		case p["app_cert_sn"] != s.cfg.AppCertSN:
			return invalidArguments("isv.app-cert-sn-error", "app_cert_sn is not the app certificate's")
		case p[s.cfg.CertParamPrefix+"root_cert_sn"] != s.cfg.RootCertSN:
			return invalidArguments("isv.root-cert-sn-error", "root_cert_sn is not the root certificates'")
		}
	}
	if _, err := time.ParseInLocation(family.TimeLayout, p["timestamp"], family.ProviderZone); err != nil {
		return invalidArguments("isv.invalid-timestamp", "timestamp is not yyyy-MM-dd HH:mm:ss")
	}
	if rsakey.Verify(s.appKey, []byte(family.RequestBase(p)), p["sign"]) != nil {
		return invalidArguments("isv.invalid-signature", "signature does not verify")
	}
	return nil
}

// answer writes the envelope: the response node named after the method
// (error_response when none) and the sign over the node's exact bytes.
func (s *Simulator) answer(c *fiber.Ctx, method string, n node) error {
	name := "error_response"
	if method != "" {
		name = strings.ReplaceAll(method, ".", "_") + "_response"
	}
	raw, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("wallet_a simulator answer: %w", err)
	}
	sig, err := rsakey.Sign(s.signKey, raw)
	if err != nil {
		return fmt.Errorf("wallet_a simulator answer: %w", err)
	}
	nameJSON, _ := json.Marshal(name)
	body := `{` + string(nameJSON) + `:` + string(raw) + `,"sign":"` + sig + `"`
	if s.cfg.ProviderCertSN != "" {
		snName, _ := json.Marshal(s.cfg.CertParamPrefix + "cert_sn")
		snJSON, _ := json.Marshal(s.cfg.ProviderCertSN)
		body += `,` + string(snName) + `:` + string(snJSON)
	}
	body += `}`
	c.Set(fiber.HeaderContentType, "application/json;charset=utf-8")
	return c.SendString(body)
}

// precreate makes the trade (or answers the same code again for the same
// trade) and returns the address of its simulated payment page as the QR
// payload.
func (s *Simulator) precreate(ctx context.Context, p map[string]string) node {
	var biz struct {
		family.PrecreateBiz
		Passback string `json:"passback_params"` // echoed in the notification
	}
	if err := json.Unmarshal([]byte(p["biz_content"]), &biz); err != nil {
		return invalidArguments("isv.invalid-biz-content", "biz_content is not JSON")
	}
	amt, err := schema.ParseAmount(biz.TotalAmount)
	switch {
	case biz.OutTradeNo == "" || len(biz.OutTradeNo) > family.MaxOrderID:
		return invalidArguments("isv.invalid-out-trade-no", "out_trade_no must be 1 to 64 bytes")
	case err != nil:
		return invalidArguments("isv.invalid-total-amount", "total_amount is not an amount")
	case strings.TrimSpace(biz.Subject) == "":
		return invalidArguments("isv.missing-subject", "subject is missing")
	case biz.TransCurrency != "" && !decimal.Currency(biz.TransCurrency):
		return invalidArguments("isv.invalid-trans-currency", "trans_currency is not a currency code")
	}
	if old, err := s.load(ctx, biz.OutTradeNo); err == nil {
		return s.again(old, amt.String(), biz.TransCurrency)
	}
	t := trade{
		OutTradeNo: biz.OutTradeNo, TradeNo: newTradeNo(), Token: simkit.RandomHex(16), TotalAmount: amt.String(),
		TransCurrency: biz.TransCurrency, Subject: biz.Subject, Passback: biz.Passback, NotifyURL: p["notify_url"], Created: time.Now(),
	}
	err = s.save(ctx, t)
	if err == nil {
		err = s.state.Put(ctx, tokenKey(t.Token), []byte(t.OutTradeNo), tradeTTL)
	}
	if err != nil {
		s.log.Error("wallet_a simulator: store trade", "err", err)
		return refusal("20000", "Service Currently Unavailable", "isp.unknow-error", "try again")
	}
	return node{"code": family.CodeSuccess, "msg": "Success", "out_trade_no": t.OutTradeNo, "qr_code": s.qrURL(t.Token)}
}

// again answers a precreate for a trade that exists: the same code when
// nothing differs, a refusal when it is paid or its amount differs.
func (s *Simulator) again(t trade, amount, currency string) node {
	switch {
	case t.Status == family.StatusTradeSuccess:
		return businessFailed("ACQ.TRADE_HAS_SUCCESS", "trade is paid")
	case t.Status == family.StatusTradeClosed:
		return businessFailed("ACQ.TRADE_HAS_CLOSE", "trade is closed")
	case t.TotalAmount != amount || t.TransCurrency != currency:
		return businessFailed("ACQ.CONTEXT_INCONSISTENT", "trade exists with other amount")
	}
	return node{"code": family.CodeSuccess, "msg": "Success", "out_trade_no": t.OutTradeNo, "qr_code": s.qrURL(t.Token)}
}

func (s *Simulator) qrURL(token string) string { return s.cfg.BaseURL + "/qr/" + token }

// query answers a trade by out_trade_no; one nobody scanned yet does not
// exist at the provider.
func (s *Simulator) query(ctx context.Context, bizContent string) node {
	var biz struct {
		OutTradeNo string `json:"out_trade_no"`
	}
	if err := json.Unmarshal([]byte(bizContent), &biz); err != nil || biz.OutTradeNo == "" {
		return invalidArguments("isv.invalid-out-trade-no", "out_trade_no is missing")
	}
	t, err := s.load(ctx, biz.OutTradeNo)
	if err != nil || t.Status == "" {
		return businessFailed("ACQ.TRADE_NOT_EXIST", "trade does not exist")
	}
	n := node{
		"code": family.CodeSuccess, "msg": "Success", "trade_no": t.TradeNo, "out_trade_no": t.OutTradeNo,
		"trade_status": t.Status, "total_amount": t.TotalAmount, "buyer_logon_id": simBuyer,
	}
	if t.TransCurrency != "" {
		n["trans_currency"] = t.TransCurrency
	}
	if t.Status == family.StatusTradeSuccess {
		n["send_pay_date"] = t.Settled.In(family.ProviderZone).Format(family.TimeLayout)
	}
	return n
}

// simBuyer is the masked payer account every simulated trade shows.
const simBuyer = "sim***@example.com"

// newTradeNo is a provider trade id: the date and 20 random digits.
func newTradeNo() string {
	n, _ := rand.Int(rand.Reader, new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
	return time.Now().In(family.ProviderZone).Format("20060102") + fmt.Sprintf("%020d", n)
}

// Refunded is what the simulated provider has refunded on a trade, and in
// how many refunds: what the family's tests read after asking for refunds.
func (s *Simulator) Refunded(ctx context.Context, outTradeNo string) (total string, count int, err error) {
	t, err := s.load(ctx, outTradeNo)
	return t.Refunded, len(t.Refunds), err
}
