package checkout

import (
	"context"
	"net/netip"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// OrderPorts are what the pages ask of the command side, one small port
// per page's need, each satisfied by one use case that cmd/gateway wires
// (command.UseCases). Every method that changes an order does so once, with
// its event; errors are platform kinds the pages word for the payer.
type OrderPorts struct {
	Reads   OrderReader   // every page
	Choose  MethodChooser // the select page
	Cancel  Canceller     // the payment and select pages' cancel
	Steps   StepConfirmer // the fiatpsp and cryptopsp second choice
	USDT    USDTPayer     // the usdt_direct checkout
	Balance BalancePayer  // the balance login
}

// complete reports whether every port is wired.
func (o OrderPorts) complete() bool {
	return o.Reads != nil && o.Choose != nil && o.Cancel != nil && o.Steps != nil && o.USDT != nil && o.Balance != nil
}

// OrderReader is the reads every page makes.
type OrderReader interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
	// PollStatus is the polling fast path: the status and the return URL,
	// nothing else read.
	PollStatus(ctx context.Context, id string) (schema.Status, string, error)
	// Expiry is when an unpaid order is cancelled, for the USDT countdown.
	Expiry(o *schema.Order) time.Time
}

// MethodChooser is the select page: the methods offered and the choice.
type MethodChooser interface {
	Methods(ctx context.Context, o *schema.Order) ([]schema.MethodOption, error)
	ChooseMethod(ctx context.Context, id string, m schema.Method) (*schema.Order, error)
}

// Canceller is the payer's "cancel payment".
type Canceller interface {
	Cancel(ctx context.Context, id string) (*schema.Order, error)
}

// StepConfirmer is the two-step flows' second choice and its options.
type StepConfirmer interface {
	FiatpspSystems(ctx context.Context, o *schema.Order) ([]schema.SystemOption, error)
	ConfirmFiatpsp(ctx context.Context, id, systemID string) (*schema.Order, error)
	CryptoCurrencies(ctx context.Context, o *schema.Order) ([]schema.CryptoOption, error)
	ConfirmCryptopsp(ctx context.Context, id, payCurrency string) (*schema.Order, error)
}

// USDTPayer is the usdt_direct checkout.
type USDTPayer interface {
	USDTNetworks(sandbox bool) []schema.USDTNetwork
	ChooseUSDTNetwork(ctx context.Context, id, network string) (*schema.Order, error)
	SubmitTxHash(ctx context.Context, id, hash string) (*schema.Order, error)
	// SimulateUSDTTransfer makes, on the sandbox's simulated chain, the
	// transfer a sandbox order's payer would send, and gives its hash.
	SimulateUSDTTransfer(ctx context.Context, id string) (string, error)
}

// BalancePayer pays an order from the logged-in payer's balance.
type BalancePayer interface {
	PayWithBalance(ctx context.Context, orderID, payerAppID string) (*schema.Order, error)
}

// Payers is the balance login: platform accounts with a password.
type Payers interface {
	Login(ctx context.Context, appid, password string, ip netip.Addr) (token string, acct *merchant.Account, err error)
	Session(ctx context.Context, token string) (*merchant.Account, error)
	Logout(ctx context.Context, token string) error
	Balances(ctx context.Context, appid string) (map[string]schema.Amount, error)
}

// KeyStore hands every node the same secret by name.
type KeyStore interface {
	Key(ctx context.Context, name string) ([]byte, error)
}

// Merchants looks up a merchant account, for the display name payers see.
type Merchants interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
}

// ReturnLinks is where a payer goes back to from an order of another door
// than SPEC.md's API, whose protocol signs the way back (the epay door:
// return_url with the notification's signed parameters).
type ReturnLinks interface {
	// ReturnLink is o's link, or "" where return_url stays as SPEC.md
	// has it (an order of SPEC.md's API, or one not paid).
	ReturnLink(ctx context.Context, o *schema.Order) string
}

// returnLink is o's return link by its door, "" for SPEC.md's rule.
func (p *Pages) returnLink(ctx context.Context, o *schema.Order) string {
	if p.returns == nil || o.Door == "" {
		return ""
	}
	return p.returns.ReturnLink(ctx, o)
}
