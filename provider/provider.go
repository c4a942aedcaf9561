package provider

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"github.com/paygate/gateway/schema"
)

// Money is an amount in minor units (two decimals) of a currency.
type Money struct {
	Amount   schema.Amount
	Currency string
}

// IsZero reports that no amount is given.
func (m Money) IsZero() bool { return m.Amount == 0 && m.Currency == "" }

// Payment is what an adapter is told about an order when it initialises a
// payment. The command side has done the FX: Charge is what the provider
// must charge (the order's amount, or its conversion at the recorded rate),
// Original the order's own amount when they differ.
type Payment struct {
	OrderID       string
	Method        schema.Method
	Charge        Money
	Original      Money
	Description   string
	CustomerName  string
	CustomerEmail string
	CustomerPhone string
	ClientIP      string
	SystemID      string // fiatpsp: the payment system the payer chose
	PayCurrency   string // cryptopsp: the cryptocurrency the payer chose
	// Our addresses the provider needs: where it notifies us, where it sends
	// the payer back after success, failure or cancellation.
	NotifyURL, SuccessURL, FailURL, CancelURL string
	ExpiresAt                                 time.Time
}

// Init is what initialising a payment gives back. All of it is stored on the
// order, so a replayed create answers the same without asking again.
type Init struct {
	ProviderURL string // where the provider takes the payer, if it does
	QRPayload   string // what the payer scans, for QR methods
	NextAction  string // a choice the payer makes on our pages first
	Ref         string // the provider's identifier of the payment, if any
}

// Outcome is what a provider says of a payment.
type Outcome int

const (
	OutcomePending   Outcome = iota // created, waiting, confirming: nothing to do yet
	OutcomePaid                     // paid in full, as the provider says
	OutcomePartial                  // some money arrived, not all: never pays
	OutcomeFailed                   // the payment failed
	OutcomeCancelled                // the payer cancelled
	OutcomeExpired                  // the provider gave up waiting
	OutcomeRefunded                 // money went back to the payer
)

var outcomeNames = [...]string{"pending", "paid", "partial", "failed", "cancelled", "expired", "refunded"}

func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "unknown"
	}
	return outcomeNames[o]
}

// Notification is a provider's word on a payment, after its signature (and,
// where the protocol wants it, a call back to the provider) proved it real.
// The command side checks OrderID, Paid and the order's state.
type Notification struct {
	OrderID string
	Ref     string // the provider's transaction id
	// InitRef is the payment's id as Initialise returned it (Init.Ref,
	// recorded on the order), when the notification names it. The command
	// side refuses a notification whose InitRef is not its order's, so a
	// real payment of one charge never settles another order, whatever
	// order id it carries. Empty where the protocol's notification names
	// no such id (walleta and walletb, whose reference is our order id;
	// bdcard, whose session key no notification carries).
	InitRef string
	Outcome Outcome
	Paid    Money             // what the provider says it received; zero when it says nothing
	Fields  map[string]string // the notification's fields without secrets, kept for support
}

// Request is a notification as it reached us.
type Request struct {
	Header   http.Header
	Body     []byte
	Form     url.Values // the body's form fields, for form POSTs
	Query    url.Values
	RemoteIP netip.Addr
	Path     string // the part of the path after the family's prefix ("ipn", "return/success")
}

// Reply is the answer a provider expects to a notification.
type Reply struct {
	Status      int
	ContentType string
	Body        string
	Location    string // a redirect, for notifications that are the payer's browser
}

// Adapter is one provider family's protocol as the command side uses it.
type Adapter interface {
	// Initialise creates the payment at the provider.
	Initialise(ctx context.Context, p Payment) (Init, error)
	// Verify proves a notification real and says what it means; an error
	// wrapping ErrSignature, ErrMalformed or ErrUnverified refuses it.
	Verify(ctx context.Context, r *Request) (Notification, error)
	// Query asks the provider what became of an order's payment.
	Query(ctx context.Context, orderID, ref string) (Notification, error)
	// Reply is the answer the provider expects, to an accepted notification
	// (err nil) or a refused one.
	Reply(n Notification, err error) Reply
}

// RefundRequest is what an adapter is told of a refund of a paid order.
// The provider keys the refund by RefundID, so asking again for the same
// refund (a retry after a crash) refunds once.
type RefundRequest struct {
	OrderID  string
	Ref      string // the provider's id of the payment, as recorded on the order
	RefundID string // ours
	Amount   Money  // in what the provider charged
	Charged  Money  // what the payment charged in all
	Reason   string
}

// RefundResult is a provider's answer to a refund it made.
type RefundResult struct {
	Ref string // the provider's id of the refund
}

// System is one of fiatpsp's payment systems.
type System struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Currency string `json:"currency"`
}

// Systems is an adapter that lists payment systems (fiatpsp).
type Systems interface {
	Systems(ctx context.Context) ([]System, error)
}

// Currencies is an adapter that lists cryptocurrencies and minimum amounts
// (cryptopsp).
type Currencies interface {
	Currencies(ctx context.Context) ([]string, error)
	// MinAmount is the smallest price, in fiat, the provider accepts for a
	// payment in the cryptocurrency.
	MinAmount(ctx context.Context, fiat, crypto string) (Money, error)
}

// Errors adapters wrap, so that the command side tells a forged
// notification from a provider that is down.
var (
	ErrSignature   = errors.New("signature does not verify")
	ErrMalformed   = errors.New("notification is malformed")
	ErrUnverified  = errors.New("the provider did not confirm the notification")
	ErrUnavailable = errors.New("provider unavailable")
	ErrRefused     = errors.New("provider refused the request")
	ErrNotFound    = errors.New("not found at the provider")
)

// Causes of ErrUnavailable the Caller marks, so the command side tells a
// channel's failures apart (channel.Outcome) without reading error text.
var (
	ErrTimeout   = errors.New("no answer in time")
	ErrTransport = errors.New("connection failed")
	ErrHTTP5xx   = errors.New("server error answer")
)
