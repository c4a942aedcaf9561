package walletb

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/walletb"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/rsakey"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is the simulator's side of the sandbox.
type SimConfig struct {
	BaseURL               string // its own public base, for the code URLs
	MerchantID            string // the merchant it accepts calls from
	MerchantSerial        string // the serial our calls must name
	MerchantPublicKeyPEM  string // checks our Authorization signatures
	PlatformPrivateKeyPEM string // signs answers and notifications
	PlatformSerial        string
	APIv3Key              string // encrypts notification resources
	HeaderPrefix          string
	AuthScheme            string // DefaultAuthScheme in the sandbox
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
		BaseURL: baseURL, MerchantID: family.SandboxMerchantID, MerchantSerial: family.SandboxMerchantSerial,
		MerchantPublicKeyPEM: family.SandboxMerchantPublicPEM, PlatformPrivateKeyPEM: family.SandboxPlatformPrivatePEM,
		PlatformSerial: family.SandboxPlatformSerial, APIv3Key: family.SandboxAPIv3Key, AuthScheme: family.DefaultAuthScheme,
	}
}

// Simulator answers wallet_b's API for the sandbox and plays the payer's
// wallet: a page per transaction where a tester pays or fails, after which
// it notifies the transaction's notify_url, signed with the platform key,
// its resource sealed with the API v3 key.
//
// The live provider notifies only a success; the simulator also notifies a
// failure (TRANSACTION.PAYERROR, trade_state PAYERROR), so that a sandbox
// Fail reaches the order without waiting for a query or the expiry. Nothing
// live depends on it: Verify maps the trade_state, whatever the event.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	merch  *rsa.PublicKey
	plat   platform // the platform key it signs with, and its certificates
	err    error    // a key that did not parse: every route answers 500
	code   *simkit.CodePage[simTx]
	faults *sandbox.FaultSwitch
}

// NewSimulator builds the simulator. A key in cfg that does not parse is
// logged and makes every call fail, rather than stopping the gateway.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	if log == nil {
		log = slog.Default()
	}
	s := &Simulator{cfg: cfg, state: state, n: n, log: log}
	var errM, errP, errK error
	s.merch, errM = rsakey.ParsePublic(cfg.MerchantPublicKeyPEM)
	var signKey *rsa.PrivateKey
	if signKey, errP = rsakey.ParsePrivate(cfg.PlatformPrivateKeyPEM); errP == nil {
		errP = s.plat.add(signKey, cfg.PlatformSerial)
	}
	if len(cfg.APIv3Key) != 32 {
		errK = errors.New("API v3 key must be 32 bytes")
	}
	if err := errors.Join(errM, errP, errK); err != nil {
		s.err = fmt.Errorf("wallet_b simulator: %w", err)
		log.Error("wallet_b simulator unusable", "err", s.err)
	}
	s.code = s.codePage()
	s.faults = sandbox.NewFaultSwitch(state, cfg.BaseURL, log)
	return s
}

// Register mounts the simulator's routes: POST /v3/pay/transactions/native,
// GET /v3/pay/transactions/out-trade-no/:no, POST /v3/refund/domestic/refunds,
// GET /v3/certificates, and GET and POST /qr/:token
// (the scanned code's page).
func (s *Simulator) Register(r fiber.Router) {
	r.Post(family.PathNative, s.native)
	r.Get(family.PathQuery+":no", s.query)
	r.Post(family.PathRefunds, s.refund)
	r.Get(family.PathCertificates, s.certificates)
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
	s.code.Register(r)
}

// txTTL keeps a simulated transaction a couple of days.
const txTTL = 48 * time.Hour

// simTx is a simulated transaction as the simulator keeps it.
type simTx struct {
	OutTradeNo    string    `json:"out_trade_no"`
	TransactionID string    `json:"transaction_id"`
	Token         string    `json:"token"`
	AppID         string    `json:"appid"`
	Description   string    `json:"description"`
	NotifyURL     string    `json:"notify_url"`
	Total         int64     `json:"total"`
	Currency      string    `json:"currency"`
	State         string    `json:"state"` // NOTPAY, SUCCESS, PAYERROR
	Settled       time.Time `json:"settled,omitzero"`
	// Refunds by out_refund_no, and their total (minor units).
	Refunds       map[string]simRefund `json:"refunds,omitempty"`
	RefundedTotal int64                `json:"refunded,omitempty"`
}

func txKey(outTradeNo string) string { return "sim:" + family.Family + ":tx:" + outTradeNo }
func tokenKey(token string) string   { return "sim:" + family.Family + ":qr:" + token }

func (s *Simulator) load(ctx context.Context, outTradeNo string) (simTx, error) {
	t, err := simkit.Load[simTx](ctx, s.state, txKey(outTradeNo))
	if err != nil {
		return simTx{}, fmt.Errorf("wallet_b simulator transaction: %w", err)
	}
	return t, nil
}

func (s *Simulator) save(ctx context.Context, t simTx) error {
	if err := simkit.Save(ctx, s.state, txKey(t.OutTradeNo), t, txTTL); err != nil {
		return fmt.Errorf("wallet_b simulator transaction: %w", err)
	}
	return nil
}

// reply writes a JSON answer signed with the platform key, as every answer
// of the provider is.
func (s *Simulator) reply(c *fiber.Ctx, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("wallet_b simulator answer: %w", err)
	}
	key, serial := s.plat.signer()
	h, err := family.SignMessage(key, serial, time.Now(), body)
	if err != nil {
		return fmt.Errorf("wallet_b simulator answer: %w", err)
	}
	h.Set(s.cfg.HeaderPrefix, func(k, v string) { c.Set(k, v) })
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(status).Send(body)
}

// restricted is the provider's answer to an order of a merchant account it
// has restricted (the sandbox's restricted fault).
func (s *Simulator) restricted(c *fiber.Ctx) error {
	return s.reply(c, fiber.StatusForbidden, apiError{"NO_AUTH", "商户无权限"})
}

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// authenticate checks our Authorization header as the provider does: its
// scheme, merchant, certificate serial, time stamp within five minutes and
// the signature over method, path with query, time stamp, nonce and body.
func (s *Simulator) authenticate(c *fiber.Ctx) error {
	p, err := family.ParseAuthorization(s.cfg.AuthScheme, c.Get(fiber.HeaderAuthorization))
	if err != nil {
		return fmt.Errorf("authorization: %w", err)
	}
	if p["mchid"] != s.cfg.MerchantID || (s.cfg.MerchantSerial != "" && p["serial_no"] != s.cfg.MerchantSerial) {
		return errors.New("unknown merchant or certificate serial")
	}
	ts, err := strconv.ParseInt(p["timestamp"], 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > family.DefaultMaxSkew {
		return errors.New("time stamp outside the window")
	}
	msg := family.RequestMessage(c.Method(), c.OriginalURL(), p["timestamp"], p["nonce_str"], c.Body())
	if rsakey.Verify(s.merch, msg, p["signature"]) != nil {
		return errors.New("signature does not verify")
	}
	return nil
}

// guard answers 500 for an unusable simulator and 401 for a call that does
// not authenticate; true means go on.
func (s *Simulator) guard(c *fiber.Ctx) (bool, error) {
	if s.err != nil {
		return false, c.SendStatus(fiber.StatusInternalServerError)
	}
	if err := s.authenticate(c); err != nil {
		return false, s.reply(c, fiber.StatusUnauthorized, apiError{"SIGN_ERROR", err.Error()})
	}
	return true, nil
}

// native creates the transaction (or answers the same code again for the
// same one) and returns its simulated page's address as code_url.
func (s *Simulator) native(c *fiber.Ctx) error {
	if ok, err := s.guard(c); !ok {
		return err
	}
	if done, err := s.faults.Intercept(c, s.restricted); done {
		return err
	}
	var o family.NativeOrder
	if err := json.Unmarshal(c.Body(), &o); err != nil {
		return s.reply(c, fiber.StatusBadRequest, apiError{"PARAM_ERROR", "body is not JSON"})
	}
	if msg := checkOrder(o, s.cfg.MerchantID); msg != "" {
		return s.reply(c, fiber.StatusBadRequest, apiError{"PARAM_ERROR", msg})
	}
	if o.Amount.Currency == "" {
		o.Amount.Currency = "CNY" // the provider's default
	}
	ctx := c.UserContext()
	if old, err := s.load(ctx, o.OutTradeNo); err == nil {
		return s.again(c, old, o)
	}
	t := simTx{
		OutTradeNo: o.OutTradeNo, TransactionID: newTransactionID(), Token: family.RandomToken(32), AppID: o.AppID,
		Description: o.Description, NotifyURL: o.NotifyURL, Total: o.Amount.Total, Currency: o.Amount.Currency, State: "NOTPAY",
	}
	err := s.save(ctx, t)
	if err == nil {
		err = s.state.Put(ctx, tokenKey(t.Token), []byte(t.OutTradeNo), txTTL)
	}
	if err != nil {
		s.log.Error("wallet_b simulator: store transaction", "err", err)
		return s.reply(c, fiber.StatusInternalServerError, apiError{"SYSTEM_ERROR", "try again"})
	}
	return s.reply(c, fiber.StatusOK, map[string]string{"code_url": s.codeURL(t.Token)})
}

func checkOrder(o family.NativeOrder, mchid string) string {
	switch {
	case o.MchID != mchid:
		return "mchid is not the caller's"
	case o.AppID == "":
		return "appid is missing"
	case o.OutTradeNo == "" || len(o.OutTradeNo) > family.MaxOrderID:
		return "out_trade_no must be 1 to 64 bytes"
	case strings.TrimSpace(o.Description) == "":
		return "description is missing"
	case o.NotifyURL == "":
		return "notify_url is missing"
	case o.Amount.Total <= 0 || schema.Amount(o.Amount.Total) > schema.MaxAmount:
		return "amount.total must be a positive integer of minor units"
	case o.Amount.Currency != "" && !decimal.Currency(o.Amount.Currency):
		return "amount.currency is not a currency code"
	}
	return ""
}

// again answers a native call for a transaction that exists: the same code
// when nothing differs, a refusal when it is settled or differs.
func (s *Simulator) again(c *fiber.Ctx, t simTx, o family.NativeOrder) error {
	switch {
	case t.State == "SUCCESS":
		return s.reply(c, fiber.StatusBadRequest, apiError{"ORDERPAID", "order is paid"})
	case t.State != "NOTPAY":
		return s.reply(c, fiber.StatusBadRequest, apiError{"ORDERCLOSED", "order is closed"})
	case t.Total != o.Amount.Total || t.Currency != o.Amount.Currency:
		return s.reply(c, fiber.StatusBadRequest, apiError{"INVALID_REQUEST", "out_trade_no exists with another amount"})
	}
	return s.reply(c, fiber.StatusOK, map[string]string{"code_url": s.codeURL(t.Token)})
}

func (s *Simulator) codeURL(token string) string { return s.cfg.BaseURL + "/qr/" + token }

// query answers a transaction by out_trade_no.
func (s *Simulator) query(c *fiber.Ctx) error {
	if ok, err := s.guard(c); !ok {
		return err
	}
	if c.Query("mchid") != s.cfg.MerchantID {
		return s.reply(c, fiber.StatusBadRequest, apiError{"PARAM_ERROR", "mchid is not the caller's"})
	}
	t, err := s.load(c.UserContext(), strings.Clone(c.Params("no")))
	if err != nil {
		return s.reply(c, fiber.StatusNotFound, apiError{"ORDER_NOT_EXIST", "order does not exist"})
	}
	return s.reply(c, fiber.StatusOK, s.transaction(t))
}

// transaction is t as the provider shows it; the transaction id appears
// once the payer acted.
func (s *Simulator) transaction(t simTx) family.Transaction {
	tx := family.Transaction{
		MchID: s.cfg.MerchantID, AppID: t.AppID, OutTradeNo: t.OutTradeNo, TradeType: "NATIVE", TradeState: t.State,
	}
	tx.Amount.Total, tx.Amount.Currency = t.Total, t.Currency
	switch t.State {
	case "SUCCESS":
		tx.TransactionID, tx.TradeStateDesc = t.TransactionID, "payment succeeded"
		tx.SuccessTime = t.Settled.In(family.ProviderZone).Format(time.RFC3339)
		tx.Amount.PayerTotal, tx.Amount.PayerCurrency = t.Total, t.Currency
	case "PAYERROR":
		tx.TransactionID, tx.TradeStateDesc = t.TransactionID, "payment failed"
	default:
		tx.TradeStateDesc = "not paid"
	}
	return tx
}

// newTransactionID is a provider transaction id: 42 and 26 digits.
func newTransactionID() string {
	const digits = "0123456789"
	b := []byte(family.RandomToken(26))
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return "42" + string(b)
}

// Refunded is what the simulated provider has refunded on a transaction
// (minor units), and in how many refunds: what the family's tests read
// after asking for refunds.
func (s *Simulator) Refunded(ctx context.Context, outTradeNo string) (total int64, count int, err error) {
	t, err := s.load(ctx, outTradeNo)
	return t.RefundedTotal, len(t.Refunds), err
}
