package command

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Config is what the command side needs to know.
type Config struct {
	PublicURL      string         // {base_url} of every address we return
	OrderTTL       time.Duration  // how long an unpaid order stays payable
	OrderRetention time.Duration  // how long Redis keeps a finished order
	CreateLimit    platform.Limit // default per-merchant createorder limit
	QueryLimit     platform.Limit // default per-merchant limit of the sandbox driver
	// MethodLimits bound the order amount each method takes, where the
	// merchant has no override; a method absent, or a zero side, is
	// unbounded (ParseMethodLimits gives the built-in defaults).
	MethodLimits map[schema.Method]schema.AmountLimits
	// USDTNetworks are our receiving addresses for live usdt_direct orders
	// (GATEWAY_USDT_NETWORKS); none means a live payer can choose none.
	USDTNetworks []schema.USDTNetwork
	// USDTSandboxNetworks are the sandbox orders' (GATEWAY_USDT_SANDBOX_NETWORKS),
	// SandboxUSDTNetworks when none are given.
	USDTSandboxNetworks []schema.USDTNetwork
	// USDTReviewWindow is how long a usdt_direct order stays live after its
	// payer submitted a transaction hash, for the review to decide; zero
	// means DefaultUSDTReviewWindow.
	USDTReviewWindow time.Duration
	// IdempotencyTTL is how long an Idempotency-Key's decided answer is
	// replayed; zero means DefaultIdempotencyTTL (24 h).
	IdempotencyTTL time.Duration
	// ChannelBudget is how long one initialisation may spend trying a
	// method's channels in turn (GATEWAY_CHANNEL_BUDGET); zero means
	// DefaultChannelBudget.
	ChannelBudget time.Duration
	// Now is the clock orders are created, moved, expired and recovered by
	// (platform.Clock); nil is the system clock.
	Now platform.Clock
}

// DefaultUSDTReviewWindow leaves a day to review a submitted transaction.
const DefaultUSDTReviewWindow = 24 * time.Hour

// Defaults is what `gateway serve` gives the command side unless told
// otherwise (platform.Defaults' order times and limits); the public URL is
// the caller's.
func Defaults() Config {
	p := platform.Defaults()
	l := p.Limits()
	return Config{OrderTTL: p.OrderTTL, OrderRetention: p.OrderRetention, CreateLimit: l.Create, QueryLimit: l.Query,
		MethodLimits: DefaultMethodLimits(), USDTReviewWindow: DefaultUSDTReviewWindow, IdempotencyTTL: DefaultIdempotencyTTL,
		ChannelBudget: DefaultChannelBudget}
}

// withDefaults fills the fields whose zero means "the default": the review
// window and the idempotency TTL. The order times and limits stay the
// caller's to give, as they always were.
func (c Config) withDefaults() Config {
	d := Defaults()
	if c.USDTReviewWindow == 0 {
		c.USDTReviewWindow = d.USDTReviewWindow
	}
	if c.IdempotencyTTL == 0 {
		c.IdempotencyTTL = d.IdempotencyTTL
	}
	if c.ChannelBudget == 0 {
		c.ChannelBudget = d.ChannelBudget
	}
	return c
}

// notifyPath is where each family's provider notifies us, under
// /api/gatewaynotification/<family>/ (SPEC.md names four of them).
var notifyPath = map[schema.Method]string{
	schema.MethodWalletA: "notify", schema.MethodWalletB: "notify", schema.MethodCryptohost: "webhook",
	schema.MethodBDCard: "ipn", schema.MethodBDPSPA: "ipn", schema.MethodFiatPSP: "notify", schema.MethodCryptoPSP: "ipn",
}

// NotificationBase is the prefix of a family's notification endpoints:
// sandbox orders are notified under /sandbox, so that sandbox secrets never
// verify anything for a live order.
func (c Config) NotificationBase(m schema.Method, sandbox bool) string {
	if sandbox {
		return c.PublicURL + "/sandbox/gatewaynotification/" + string(m)
	}
	return c.PublicURL + "/api/gatewaynotification/" + string(m)
}

// ChannelNotificationBase is NotificationBase of one channel: the plain
// prefix for the default channel (as before channels), .../ch/<id> for
// another, so the notification is verified with that channel's secrets
// alone.
func (c Config) ChannelNotificationBase(m schema.Method, sandbox bool, chID string) string {
	base := c.NotificationBase(m, sandbox)
	if chID == "" || chID == channel.Default {
		return base
	}
	return base + "/ch/" + url.PathEscape(chID)
}

// ProviderURLs are the addresses an adapter gives its provider for o:
// where to notify us (its channel's path), and where to send the payer
// after success, failure or cancellation (our payment page, except for
// bdpsp_b, whose browser returns are its notifications).
func (c Config) ProviderURLs(o *schema.Order) (notify, success, fail, cancel string) {
	base := c.ChannelNotificationBase(o.Method, o.Sandbox, o.Channel)
	if o.Method == schema.MethodBDPSPB {
		return base + "/return", base + "/return/success", base + "/return/fail", base + "/return/cancel"
	}
	page := c.PublicURL + "/payment/" + url.PathEscape(o.ID)
	if o.Method == schema.MethodFiatPSP {
		// The provider notifies payments only: a failure is learnt from the
		// payer's return, verified by the provider's order status.
		return base + "/" + notifyPath[o.Method], page, base + "/return/fail?paymentId=" + url.QueryEscape(o.ID), page
	}
	return base + "/" + notifyPath[o.Method], page, page, page
}

// Validate reports every bad value at once; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if c.PublicURL == "" {
		errs = append(errs, errors.New("command: public URL is empty"))
	}
	if c.OrderTTL <= 0 || c.OrderRetention <= 0 {
		errs = append(errs, errors.New("command: order TTL and retention must be positive"))
	}
	if c.CreateLimit.PerSecond <= 0 || c.QueryLimit.PerSecond <= 0 {
		errs = append(errs, errors.New("command: rate limits must be positive"))
	}
	if c.IdempotencyTTL < 0 {
		errs = append(errs, errors.New("command: the idempotency TTL must not be negative"))
	}
	if c.ChannelBudget < 0 {
		errs = append(errs, errors.New("command: the channel budget must not be negative"))
	}
	if c.USDTReviewWindow < 0 {
		errs = append(errs, errors.New("command: the USDT review window must not be negative"))
	}
	if err := checkUSDTNetworks(append(slices.Clone(c.USDTNetworks), c.USDTSandboxNetworks...)); err != nil {
		errs = append(errs, fmt.Errorf("command: %w", err))
	}
	errs = append(errs, validateLimits(c.MethodLimits))
	return errors.Join(errs...)
}

// Accounts is the account lookup the command side needs.
type Accounts interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
	AuthQuery(ctx context.Context, appid, key string) (*merchant.Account, error)
}
