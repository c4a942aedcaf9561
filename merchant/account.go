package merchant

import (
	"crypto/subtle"
	"strconv"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Account is a merchant account.
type Account struct {
	AppID       string    `json:"appid"`
	Name        string    `json:"name"`
	APIKey      string    `json:"apiKey,omitempty"`
	PrevAPIKey  string    `json:"-"`
	PrevKeyTill time.Time `json:"prevKeyValidUntil,omitzero"`
	QueryKey    string    `json:"queryKey,omitempty"`
	// The query key before the last rotation, which keeps reading until
	// PrevQueryTill: a merchant's servers poll status with it, and a
	// rotation must not fail their polls while they roll over.
	PrevQueryKey  string    `json:"-"`
	PrevQueryTill time.Time `json:"prevQueryKeyValidUntil,omitzero"`
	// The webhook signing secret (whsec_...) and, for a grace period after a
	// rotation, the previous one. Never in the account's JSON: only
	// `merchant create` and `merchant rotate-webhook-secret` show it.
	WebhookSecret     string    `json:"-"`
	PrevWebhookSecret string    `json:"-"`
	PrevWebhookTill   time.Time `json:"-"`
	Callback          string    `json:"callback"`
	Sandbox           bool      `json:"sandbox"`
	// Disabled stops new business, not money already moving. The
	// merchant's own API is refused with 403 (create, query, cancel,
	// webhook log and resend, the sandbox driver), and as a payer the
	// account can neither log in nor pay from its balance. Orders already
	// created keep their course until they expire: a payer on the
	// provider's page may still pay, the provider's notification settles
	// the order, and its webhook is delivered and retried. A payer who
	// has paid must end with a paid order and the merchant must hear of
	// it: refusing either would leave money taken at the provider with
	// no record the merchant or support can act on, and the order TTL
	// bounds how long such orders last. (TestSecurityEndToEnd.)
	Disabled bool `json:"disabled"`
	// PayerOnly: the account exists to pay with its balance (the demo's
	// payer at /merchant/login), not to sell: the operator console lists
	// it apart from the merchants.
	PayerOnly bool      `json:"payerOnly,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Per-merchant rate limit overrides; nil means the gateway's default.
	CreateLimit *platform.Limit `json:"createLimit,omitempty"`
	QueryLimit  *platform.Limit `json:"queryLimit,omitempty"`
	ReportLimit *platform.Limit `json:"reportLimit,omitempty"`
	// Per-method amount limits that replace the gateway's default for the
	// method; nil means the defaults. Shown by the CLI with the defaults.
	MethodLimits map[schema.Method]schema.AmountLimits `json:"-"`
	// When each credential was last issued by a rotation; zero: never
	// rotated since these were kept (issued at creation, or rotated
	// before). The operator console shows the keys' age from them.
	KeyRotatedAt           time.Time `json:"-"`
	QueryKeyRotatedAt      time.Time `json:"-"`
	WebhookSecretRotatedAt time.Time `json:"-"`

	// The merchant's confirmation that its webhook receiver holds the
	// current API key (a digest naming that key; see WebhookKey).
	WebhookKeyConfirmed string `json:"-"`

	// Terms are the ledger's settings for this merchant (DefaultTerms
	// until an operator sets them).
	Terms Terms `json:"-"`

	// Group is the operator's merchant group ("" for none): channels may
	// serve a group rather than a list of merchants.
	Group string `json:"group,omitempty"`
}

// SignKeys are the API keys a signature may be made with now: the current
// one, and during a rotation's grace period the previous one too.
func (a *Account) SignKeys(now time.Time) []string {
	if a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) {
		return []string{a.APIKey, a.PrevAPIKey}
	}
	return []string{a.APIKey}
}

// Limit picks the merchant's override of a default.
func Limit(override *platform.Limit, def platform.Limit) platform.Limit {
	if override != nil {
		return *override
	}
	return def
}

// QueryKeyMatches says whether k is the query key, or the previous one
// while its grace period lasts at now. Both comparisons are made whatever
// the first answers, in constant time, so the answer's timing tells
// nothing about which key (if any) was close.
func (a *Account) QueryKeyMatches(k string, now time.Time) bool {
	if k == "" {
		return false
	}
	cur := subtle.ConstantTimeCompare([]byte(a.QueryKey), []byte(k))
	prev := subtle.ConstantTimeCompare([]byte(a.PrevQueryKey), []byte(k))
	inGrace := a.PrevQueryKey != "" && now.Before(a.PrevQueryTill)
	return cur == 1 || (prev == 1 && inGrace)
}

// Hash field names of an account.
const (
	fAppID    = "appid"
	fName     = "name"
	fAPIKey   = "apiKey"
	fPrevKey  = "prevApiKey"
	fPrevTill = "prevApiKeyUntil"
	fQueryKey = "queryKey"
	fQPrev    = "prevQueryKey"
	fQTill    = "prevQueryKeyUntil"
	fCallback = "callback"
	fSandbox  = "sandbox"
	fDisabled = "disabled"
	fCreated  = "createdAt"
	fLimitC   = "limitCreate"
	fLimitQ   = "limitQuery"
	fLimitR   = "limitReport"
	fWHSecret = "webhookSecret"
	fWHPrev   = "prevWebhookSecret"
	fWHTill   = "prevWebhookSecretUntil"
	fKeyAt    = "apiKeyRotatedAt"
	fQKeyAt   = "queryKeyRotatedAt"
	fWHAt     = "webhookSecretRotatedAt"
	fPayer    = "payerOnly"
)

func (a *Account) fields() map[string]any {
	return map[string]any{
		fAppID: a.AppID, fName: a.Name, fAPIKey: a.APIKey, fPrevKey: a.PrevAPIKey,
		fPrevTill: ms(a.PrevKeyTill), fQueryKey: a.QueryKey, fCallback: a.Callback,
		fQPrev: a.PrevQueryKey, fQTill: ms(a.PrevQueryTill),
		fSandbox: flag(a.Sandbox), fDisabled: flag(a.Disabled), fCreated: ms(a.CreatedAt), fPayer: flag(a.PayerOnly),
		fWHSecret: a.WebhookSecret, fWHPrev: a.PrevWebhookSecret, fWHTill: ms(a.PrevWebhookTill),
	}
}

func accountFrom(h map[string]string) *Account {
	return &Account{
		AppID: h[fAppID], Name: h[fName], APIKey: h[fAPIKey], PrevAPIKey: h[fPrevKey],
		PrevKeyTill: fromMS(h[fPrevTill]), QueryKey: h[fQueryKey], Callback: h[fCallback],
		PrevQueryKey: h[fQPrev], PrevQueryTill: fromMS(h[fQTill]),
		Sandbox: h[fSandbox] == "1", Disabled: h[fDisabled] == "1", CreatedAt: fromMS(h[fCreated]), PayerOnly: h[fPayer] == "1",
		WebhookSecret: h[fWHSecret], PrevWebhookSecret: h[fWHPrev], PrevWebhookTill: fromMS(h[fWHTill]),
		KeyRotatedAt: fromMS(h[fKeyAt]), QueryKeyRotatedAt: fromMS(h[fQKeyAt]), WebhookSecretRotatedAt: fromMS(h[fWHAt]),
		CreateLimit: limitFrom(h[fLimitC]), QueryLimit: limitFrom(h[fLimitQ]),
		ReportLimit: limitFrom(h[fLimitR]), MethodLimits: methodLimitsFrom(h), WebhookKeyConfirmed: h[fHookKeyOK],
		Terms: termsFrom(h[fTerms]), Group: h[fGroup],
	}
}

// limitFrom reads a stored override; one that no longer parses counts as
// none, so a bad value can never lock a merchant out.
func limitFrom(s string) *platform.Limit {
	if s == "" {
		return nil
	}
	l, err := platform.ParseLimit(s)
	if err != nil {
		return nil
	}
	return &l
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func ms(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

func fromMS(s string) time.Time {
	n, _ := strconv.ParseInt(s, 10, 64)
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}
