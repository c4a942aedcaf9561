package epay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// Currency is every order's currency through this door: the protocol has
// none, and its merchants price in CNY.
const Currency = "CNY"

// Accounts finds a merchant by appid (the protocol's pid).
type Accounts interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
}

// Creator is the command side's create for a merchant another door proved
// (command.CreateOrder.CreateFor).
type Creator interface {
	CreateFor(ctx context.Context, acct *merchant.Account, d command.Draft) (*schema.Order, bool, error)
}

// Destinations judges a notify_url or return_url by the dispatcher's
// address rules (dispatcher.Destinations): the gateway will call the one
// and send payers to the other, so neither may point into our network.
type Destinations interface {
	Check(ctx context.Context, raw string) error
}

// CreateDeps are the create's collaborators.
type CreateDeps struct {
	Accounts     Accounts
	Orders       Creator
	Types        TypeSource
	Destinations Destinations
	Now          func() time.Time // nil: time.Now
}

// Create is the door's create (submit.php and mapi.php): the protocol's
// checks in its order, then the command side's create with every rule of
// ours after the signature.
type Create struct {
	d CreateDeps
}

// NewCreate builds the use case; every dependency but Now is required.
func NewCreate(d CreateDeps) (*Create, error) {
	if d.Accounts == nil || d.Orders == nil || d.Types == nil || d.Destinations == nil {
		return nil, errors.New("epay create: accounts, orders, types and destinations are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Create{d: d}, nil
}

// Call is one create as the door received it.
type Call struct {
	Params Params
	// API is mapi.php (the merchant's server calls; clientip and type are
	// required), not submit.php (the payer's browser brings the call).
	API bool
	// PayerIP is the request's address: submit.php's payer.
	PayerIP string
}

// Create checks c and creates its order, or answers the order a replay of
// the same out_trade_no names while it is live. A refusal is an *Error.
func (h *Create) Create(ctx context.Context, c Call) (*schema.Order, error) {
	p := c.Params
	if err := checkForm(p); err != nil {
		return nil, err
	}
	acct, err := h.authenticate(ctx, p)
	if err != nil {
		return nil, err
	}
	d, err := h.draft(ctx, c)
	if err != nil {
		return nil, err
	}
	o, replay, err := h.d.Orders.CreateFor(ctx, acct, d)
	if err != nil {
		return nil, fromDomain(err)
	}
	if replay && changed(o, d) {
		return nil, refused(fmt.Sprintf("order %s was made with other parameters; use a new out_trade_no", d.ClientOrderID))
	}
	return o, nil
}

// authenticate is the protocol's order: the merchant, the sign (with any
// key the merchant's rotation still accepts), then whether it may sell.
// A disabled merchant is told so only once its sign proves the call.
func (h *Create) authenticate(ctx context.Context, p Params) (*merchant.Account, error) {
	if p["pid"] == "" {
		return nil, refused("pid is required")
	}
	acct, err := h.d.Accounts.Lookup(ctx, p["pid"])
	if errors.Is(err, merchant.ErrNotFound) {
		return nil, refused("merchant does not exist")
	}
	if err != nil {
		return nil, fmt.Errorf("look up merchant: %w", err)
	}
	if st := p["sign_type"]; st != "" && st != "MD5" {
		return nil, &Error{Code: CodeBadSign, Msg: "sign_type must be MD5"}
	}
	if !h.verified(acct, p) {
		return nil, &Error{Code: CodeBadSign, Msg: "MD5 sign check failed"}
	}
	if acct.Disabled {
		return nil, refused("merchant is disabled")
	}
	return acct, nil
}

func (h *Create) verified(acct *merchant.Account, p Params) bool {
	if p["sign"] == "" {
		return false
	}
	for _, key := range acct.SignKeys(h.d.Now()) {
		if Verify(p, key) {
			return true
		}
	}
	return false
}

// draft reads the call's values into our units and codes.
func (h *Create) draft(ctx context.Context, c Call) (command.Draft, error) {
	p := c.Params
	need := []string{"out_trade_no", "notify_url", "return_url", "name", "money"}
	if c.API {
		need = []string{"type", "out_trade_no", "notify_url", "name", "money", "clientip"}
	}
	if err := required(p, need...); err != nil {
		return command.Draft{}, err
	}
	amount, err := parseMoney(p["money"])
	if err != nil {
		return command.Draft{}, err
	}
	if err := checkText(p); err != nil {
		return command.Draft{}, err
	}
	d := command.Draft{Amount: amount, Currency: Currency, Description: p["name"], ClientOrderID: p["out_trade_no"],
		NotifyURL: p["notify_url"], ReturnURL: p["return_url"], ClientIP: c.PayerIP, Door: schema.DoorEpay,
		DoorType: p["type"], DoorParam: p["param"], Method: schema.MethodSelect}
	if c.API {
		if err := checkClientIP(p["clientip"]); err != nil {
			return command.Draft{}, err
		}
		d.ClientIP = p["clientip"]
	}
	if d.Method, err = h.method(ctx, p["type"]); err != nil {
		return command.Draft{}, err
	}
	if err := h.checkURLs(ctx, d); err != nil {
		return command.Draft{}, err
	}
	return d, nil
}

// method is the type word's method, or select (the payer chooses on our
// page) for submit.php without one.
func (h *Create) method(ctx context.Context, word string) (schema.Method, error) {
	if word == "" {
		return schema.MethodSelect, nil
	}
	t, err := h.d.Types.Types(ctx)
	if err != nil {
		return "", fmt.Errorf("epay types: %w", err)
	}
	m, ok := t.Method(word)
	if !ok {
		return "", refused(fmt.Sprintf("type %.32q is not offered", word))
	}
	return m, nil
}

// checkURLs holds notify_url and return_url to SPEC.md's URL rule, and
// notify_url to the dispatcher's address rules besides: we call it, so it
// must not lead into our network, and a refusal now tells the merchant at
// once what every attempt would meet. return_url is only where the payer's
// browser goes, which reaches nothing of ours.
func (h *Create) checkURLs(ctx context.Context, d command.Draft) error {
	for _, u := range []struct{ name, v string }{{"notify_url", d.NotifyURL}, {"return_url", d.ReturnURL}} {
		if u.v == "" {
			continue
		}
		if err := schema.CheckURL(u.v); err != nil {
			return refused(u.name + " " + err.Error())
		}
	}
	if err := h.d.Destinations.Check(ctx, d.NotifyURL); err != nil {
		return &Error{Code: CodeRefused, Msg: "notify_url refused: it must lead to a public address", Err: err}
	}
	return nil
}

// changed reports whether a replayed out_trade_no came with other values
// than the live order it names: the protocol refuses that rather than
// answer an order the merchant did not ask for.
func changed(o *schema.Order, d command.Draft) bool {
	return o.Door != schema.DoorEpay || o.Amount != d.Amount || o.Description != d.Description ||
		o.NotifyURL != d.NotifyURL || o.ReturnURL != d.ReturnURL || o.DoorParam != d.DoorParam
}
