package checkout

import (
	"context"
	"net/netip"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// Orders is what the pages ask of the command side. Every method that
// changes an order does so once, with its event; errors are platform kinds
// the pages word for the payer.
type Orders interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
	// PollStatus is the polling fast path: the status and the return URL,
	// nothing else read.
	PollStatus(ctx context.Context, id string) (schema.Status, string, error)
	Methods(ctx context.Context, o *schema.Order) ([]schema.MethodOption, error)
	ChooseMethod(ctx context.Context, id string, m schema.Method) (*schema.Order, error)
	Cancel(ctx context.Context, id string) (*schema.Order, error)
	FiatpspSystems(ctx context.Context, o *schema.Order) ([]schema.SystemOption, error)
	ConfirmFiatpsp(ctx context.Context, id, systemID string) (*schema.Order, error)
	CryptoCurrencies(ctx context.Context, o *schema.Order) ([]schema.CryptoOption, error)
	ConfirmCryptopsp(ctx context.Context, id, payCurrency string) (*schema.Order, error)
	// Expiry is when an unpaid order is cancelled, for the USDT countdown.
	Expiry(o *schema.Order) time.Time
	USDTNetworks(sandbox bool) []schema.USDTNetwork
	ChooseUSDTNetwork(ctx context.Context, id, network string) (*schema.Order, error)
	SubmitTxHash(ctx context.Context, id, hash string) (*schema.Order, error)
	// SimulateUSDTTransfer makes, on the sandbox's simulated chain, the
	// transfer a sandbox order's payer would send, and gives its hash.
	SimulateUSDTTransfer(ctx context.Context, id string) (string, error)
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
