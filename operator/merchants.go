package operator

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Merchants are SPEC.md's Merchant Settings as an operator changes them:
// each change is allowed by merchants.write, done in the merchant store
// and recorded in the audit log, from the console and the CLI alike.
type Merchants struct {
	st   *merchant.Store
	j    *journal.Journal // top-ups
	log  Auditor
	dest merchant.Destinations
	now  func() time.Time
}

// NewMerchants wraps the merchant store; dest judges a callback URL's
// destination as the merchant console does (dispatcher.NewDestinations
// under GATEWAY_WEBHOOK_ALLOW_PRIVATE).
func NewMerchants(st *merchant.Store, log Auditor, dest merchant.Destinations) *Merchants {
	return &Merchants{st: st, log: log, dest: dest, now: time.Now}
}

// WithJournal makes m's top-ups journal transactions on j; without it
// Credit refuses.
func (m *Merchants) WithJournal(j *journal.Journal) *Merchants {
	m.j = j
	return m
}

// change runs one account change for actor and records it: the entry is
// built and checked first, then do makes the change and the entry is
// appended after it (a new merchant's appid known by then).
func (m *Merchants) change(ctx context.Context, actor access.Actor, action, appid string, d map[string]string,
	do func() (*merchant.Account, error)) (*merchant.Account, error) {
	e, err := m.entry(actor, action, appid, d)
	if err != nil {
		return nil, err
	}
	a, err := do()
	if err != nil {
		return nil, err
	}
	if a != nil { // a new merchant's appid is known now: digits the store made
		e.Target, e.AppID = "merchant:"+a.AppID, a.AppID
	}
	return a, record(ctx, m.log, e)
}

// update is change for a write the merchant store makes in one step with
// the entry (merchant.Store.Audited): an account field's MULTI appends it
// to the {merchants} audit stream, a credit's script to the merchant's
// home shard's, so neither is kept without the other.
func (m *Merchants) update(ctx context.Context, actor access.Actor, action, appid string, d map[string]string,
	do func(st *merchant.Store) (*merchant.Account, error)) (*merchant.Account, error) {
	e, err := m.entry(actor, action, appid, d)
	if err != nil {
		return nil, err
	}
	return do(m.st.Audited(e))
}

// entry is actor's action on appid, allowed and checked.
func (m *Merchants) entry(actor access.Actor, action, appid string, d map[string]string) (audit.Entry, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return audit.Entry{}, err
	}
	return checked(entry(m.now(), actor, action, "merchant:"+appid, appid, d))
}

// Create makes a live or sandbox merchant; its callback URL, if any, passes
// the rule SetCallback's does.
func (m *Merchants) Create(ctx context.Context, actor access.Actor, na merchant.NewAccount) (*merchant.Account, error) {
	var err error
	if na.Name, err = audit.Text("name", na.Name, merchant.MaxNameLen); err != nil {
		return nil, err
	}
	return m.change(ctx, actor, "merchant.create", "", map[string]string{"name": na.Name, "realm": sandboxWord(na.Sandbox)},
		func() (*merchant.Account, error) {
			if err := merchant.ValidateCallback(ctx, m.dest, na.Callback); err != nil {
				return nil, err
			}
			return m.st.Create(ctx, na)
		})
}

// SetDisabled disables (its calls are refused at once) or enables a
// merchant. An operator gives the reason; the CLI may.
func (m *Merchants) SetDisabled(ctx context.Context, actor access.Actor, appid string, disabled bool, reason string) (*merchant.Account, error) {
	reason, err := audit.Text("reason", reason, audit.MaxText)
	if err != nil {
		return nil, err
	}
	if reason == "" && actor.Realm == string(access.RealmOperator) {
		return nil, invalid("a reason is required")
	}
	action := "merchant.enable"
	if disabled {
		action = "merchant.disable"
	}
	return m.update(ctx, actor, action, appid, details("reason", reason),
		func(st *merchant.Store) (*merchant.Account, error) { return st.SetDisabled(ctx, appid, disabled) })
}

// SetName changes the name payers see.
func (m *Merchants) SetName(ctx context.Context, actor access.Actor, appid, name string) (*merchant.Account, error) {
	name, err := audit.Text("name", name, merchant.MaxNameLen)
	if err != nil {
		return nil, err
	}
	return m.update(ctx, actor, "merchant.set_name", appid, map[string]string{"name": name},
		func(st *merchant.Store) (*merchant.Account, error) { return st.SetName(ctx, appid, name) })
}

// SetCallback changes the default webhook URL. The URL is not in the entry:
// merchants put tokens in their callback query strings.
func (m *Merchants) SetCallback(ctx context.Context, actor access.Actor, appid, callback string) (*merchant.Account, error) {
	return m.update(ctx, actor, "merchant.set_callback", appid, nil,
		func(st *merchant.Store) (*merchant.Account, error) {
			if err := merchant.ValidateCallback(ctx, m.dest, callback); err != nil {
				return nil, err
			}
			return st.SetCallback(ctx, appid, callback)
		})
}

// RotateKey makes a new API key; the old one verifies for grace.
func (m *Merchants) RotateKey(ctx context.Context, actor access.Actor, appid string, grace time.Duration) (*merchant.Account, error) {
	return m.update(ctx, actor, "merchant.rotate_key", appid, map[string]string{"grace": grace.String()},
		func(st *merchant.Store) (*merchant.Account, error) { return st.RotateKey(ctx, appid, grace) })
}

// ConfirmWebhookKey records that the merchant's webhook receiver has the
// new API key: webhooks are MD5-signed with it from now on, not with the
// old one its rotation's grace would otherwise keep signing with.
func (m *Merchants) ConfirmWebhookKey(ctx context.Context, actor access.Actor, appid string) (*merchant.Account, error) {
	return m.update(ctx, actor, "merchant.confirm_webhook_key", appid, nil,
		func(st *merchant.Store) (*merchant.Account, error) { return st.ConfirmWebhookKey(ctx, appid) })
}

// RotateWebhookSecret makes a new webhook secret; the old one also signs for grace.
func (m *Merchants) RotateWebhookSecret(ctx context.Context, actor access.Actor, appid string, grace time.Duration) (*merchant.Account, error) {
	return m.update(ctx, actor, "merchant.rotate_webhook_secret", appid, map[string]string{"grace": grace.String()},
		func(st *merchant.Store) (*merchant.Account, error) { return st.RotateWebhookSecret(ctx, appid, grace) })
}

// RotateQueryKey makes a new query key; the old one stops at once.
func (m *Merchants) RotateQueryKey(ctx context.Context, actor access.Actor, appid string) (*merchant.Account, error) {
	return m.update(ctx, actor, "merchant.rotate_query_key", appid, nil,
		func(st *merchant.Store) (*merchant.Account, error) { return st.RotateQueryKeyGrace(ctx, appid, 0) })
}

// SetLimits sets the merchant's rate limit overrides ("" keeps one,
// "default" removes it).
func (m *Merchants) SetLimits(ctx context.Context, actor access.Actor, appid string, o merchant.LimitOverrides) (*merchant.Account, error) {
	for _, v := range []string{o.Create, o.Query, o.Report} {
		if _, err := platform.ParseLimit(v); v != "" && v != "default" && err != nil {
			return nil, invalid(err.Error())
		}
	}
	d := map[string]string{"limit": "create=" + o.Create + " query=" + o.Query + " report=" + o.Report}
	return m.update(ctx, actor, "merchant.set_limits", appid, d,
		func(st *merchant.Store) (*merchant.Account, error) { return st.SetLimits(ctx, appid, o) })
}

// SetMethodLimits sets one method's amount limits for the merchant (zero:
// no bound on that side); clear restores the default.
func (m *Merchants) SetMethodLimits(ctx context.Context, actor access.Actor, appid string, method schema.Method, l schema.AmountLimits, clear bool) (*merchant.Account, error) {
	if !method.Selectable() {
		return nil, invalid(string(method) + " is not a payment method")
	}
	if clear {
		return m.update(ctx, actor, "merchant.clear_method_limits", appid, map[string]string{"method": string(method)},
			func(st *merchant.Store) (*merchant.Account, error) { return st.ClearMethodLimits(ctx, appid, method) })
	}
	d := map[string]string{"method": string(method), "min": l.Min.String(), "max": l.Max.String()}
	return m.update(ctx, actor, "merchant.set_method_limits", appid, d,
		func(st *merchant.Store) (*merchant.Account, error) { return st.SetMethodLimits(ctx, appid, method, l) })
}

// Credit tops up the merchant's available balance in currency: the
// journal transaction topup:<key> with its audit entry in the same step.
// key makes a retry safe (the same key moves nothing twice); empty, a fresh
// one is drawn. It answers the available balance after.
func (m *Merchants) Credit(ctx context.Context, actor access.Actor, appid, currency string, amount schema.Amount, key string) (schema.Amount, error) {
	currency = strings.ToUpper(currency)
	if !schema.MethodBalance.Supports(currency) { // also keeps a bad value out of the entry
		return 0, invalid("balances are kept in " + strings.Join(schema.MethodBalance.Currencies(), " and "))
	}
	if amount <= 0 {
		return 0, invalid("the amount must be positive")
	}
	if key != "" && !validTopUpKey(key) {
		return 0, invalid("the key must be 1 to 64 characters of A-Z a-z 0-9 _ . -")
	}
	if m.j == nil {
		return 0, errors.New("merchant credit: no journal configured")
	}
	d := map[string]string{"amount": amount.String(), "currency": currency}
	if key != "" {
		d["ref"] = "topup:" + key // the journal transaction, to find it by
	}
	e, err := m.entry(actor, "merchant.credit", appid, d)
	if err != nil {
		return 0, err
	}
	if _, err := m.st.Get(ctx, appid); err != nil {
		return 0, err
	}
	bal, _, err := m.j.TopUp(ctx, key, appid, currency, amount, &e)
	return bal, err
}

// validTopUpKey keeps a caller's top-up key to what a journal key holds.
func validTopUpKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// SetPassword sets the payer-login password of the merchant's balance
// account (never in the entry).
func (m *Merchants) SetPassword(ctx context.Context, actor access.Actor, appid, password string) error {
	_, err := m.update(ctx, actor, "merchant.set_password", appid, nil,
		func(st *merchant.Store) (*merchant.Account, error) { return nil, st.SetPassword(ctx, appid, password) })
	return err
}

// details is one detail when its value is not empty.
func details(k, v string) map[string]string {
	if v == "" {
		return nil
	}
	return map[string]string{k: v}
}

// ViewConsole records that actor opened page of appid's merchant console
// in the operator console's read-only view (every role may look; each
// look is in the audit log, so a merchant can be told who saw what). The
// entry is written before the page is read: a view that cannot be logged
// is not shown.
func (m *Merchants) ViewConsole(ctx context.Context, actor access.Actor, appid, page string) error {
	if err := allow(actor, access.PermMerchantConsole); err != nil {
		return err
	}
	e, err := checked(entry(m.now(), actor, "merchant.console_view", "merchant:"+appid, appid, map[string]string{"via": page}))
	if err != nil {
		return err
	}
	if _, err := m.st.Get(ctx, appid); err != nil {
		return err
	}
	return record(ctx, m.log, e)
}
