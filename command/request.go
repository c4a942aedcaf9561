package command

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// requiredParams are SPEC.md's required body fields, in the order a merchant
// reads the table, so the first one missing is the one we name.
var requiredParams = []string{"appid", "clientip", "action", "amount", "currency", "paymentMethod", "sign"}

func checkRequired(p schema.Params) error {
	for _, name := range requiredParams {
		if p[name] == "" {
			return platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	return nil
}

// createRequest is a create whose parameters passed every business rule.
type createRequest struct {
	appid           string
	amountLit       string
	amount          schema.Amount
	currency        string
	method          schema.Method
	description     string
	customerName    string
	customerEmail   string
	customerPhone   string
	fiatpspSystemID string
	allowed         []schema.Method
	lang            string
	returnURL       string
	notifyURL       string
	clientOrderID   string
	clientIP        string
	// Another door's: how the order is notified and returned (Draft).
	door, doorType, doorParam string
}

var clientOrderIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// parseCreate applies the business rules (DESIGN.md's last check step).
func parseCreate(p schema.Params) (*createRequest, error) {
	r := &createRequest{
		appid: p["appid"], amountLit: p["amount"], currency: p["currency"],
		method: schema.Method(p["paymentMethod"]), clientIP: p["clientip"],
	}
	if p["action"] != "createorder" {
		return nil, invalid("action must be createorder")
	}
	var err error
	if r.amount, err = schema.ParseAmount(r.amountLit); err != nil {
		return nil, invalid("amount %s", err)
	}
	if !schema.KnownCurrency(r.currency) {
		return nil, invalid("currency %q is not supported", r.currency)
	}
	if !r.method.Known() {
		return nil, invalid("paymentMethod %q is not a known method", string(r.method))
	}
	if !r.method.Supports(r.currency) {
		return nil, platform.Errorf(platform.KindUnsupportedMethod,
			"paymentMethod %s does not support currency %s (it takes %s)", r.method, r.currency, strings.Join(r.method.Currencies(), ", "))
	}
	for _, check := range []func(schema.Params, *createRequest) error{checkStrings, checkURLs, checkFiatpsp, checkAllowed, checkLang} {
		if err := check(p, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func invalid(format string, args ...any) error {
	return platform.Errorf(platform.KindInvalidParameter, format, args...)
}

func checkStrings(p schema.Params, r *createRequest) error {
	r.clientOrderID = p["clientOrderId"]
	if _, given := p["clientOrderId"]; given && !clientOrderIDPattern.MatchString(r.clientOrderID) {
		return invalid("clientOrderId must be 1 to 64 characters of A-Z a-z 0-9 _ . : -")
	}
	bounds := []struct {
		name string
		dst  *string
		max  int
	}{
		{"description", &r.description, 256},
		{"customerName", &r.customerName, 128},
		{"customerEmail", &r.customerEmail, 128},
		{"customerPhone", &r.customerPhone, 128},
	}
	for _, b := range bounds {
		v := p[b.name]
		if !utf8.ValidString(v) {
			return invalid("%s is not valid UTF-8", b.name)
		}
		if utf8.RuneCountInString(v) > b.max {
			return invalid("%s must be at most %d characters", b.name, b.max)
		}
		*b.dst = v
	}
	if r.customerEmail != "" && !strings.Contains(r.customerEmail, "@") {
		return invalid("customerEmail is not an e-mail address")
	}
	return nil
}

func checkURLs(p schema.Params, r *createRequest) error {
	for _, u := range []struct {
		name string
		dst  *string
	}{{"return_url", &r.returnURL}, {"notify_url", &r.notifyURL}} {
		v := p[u.name]
		if v == "" {
			continue
		}
		if err := schema.CheckURL(v); err != nil {
			return invalid("%s %s", u.name, err)
		}
		*u.dst = v
	}
	return nil
}

func checkFiatpsp(p schema.Params, r *createRequest) error {
	v, given := p["fiatpspSystemId"]
	if !given {
		return nil
	}
	if r.method != schema.MethodFiatPSP {
		return invalid("fiatpspSystemId is only allowed with paymentMethod=fiatpsp")
	}
	n, err := strconv.ParseUint(v, 10, 31)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != v {
		return invalid("fiatpspSystemId must be a positive integer")
	}
	r.fiatpspSystemID = v
	return nil
}

// checkAllowed validates allowedPaymentMethods: select only, each code a
// method the payer could pick for this currency (balance only for USD, as
// SPEC.md's select flow offers it), no repeats.
func checkAllowed(p schema.Params, r *createRequest) error {
	v, given := p["allowedPaymentMethods"]
	if !given {
		return nil
	}
	if r.method != schema.MethodSelect {
		return invalid("allowedPaymentMethods is only allowed with paymentMethod=select")
	}
	for _, code := range strings.Split(v, ",") {
		m := schema.Method(strings.TrimSpace(code))
		switch {
		case !m.Selectable():
			return invalid("allowedPaymentMethods: %q is not a method the payer can choose", string(m))
		case !SelectableFor(m, r.currency):
			return invalid("allowedPaymentMethods: %s does not support currency %s", m, r.currency)
		case slices.Contains(r.allowed, m):
			return invalid("allowedPaymentMethods: %s is listed twice", m)
		}
		r.allowed = append(r.allowed, m)
	}
	return nil
}

// SelectableFor reports whether the select page offers m for currency.
func SelectableFor(m schema.Method, currency string) bool {
	if m == schema.MethodBalance {
		return currency == "USD"
	}
	return m.Selectable() && m.Supports(currency)
}

func checkLang(p schema.Params, r *createRequest) error {
	v, given := p["lang"]
	if !given {
		r.lang = "en"
		return nil
	}
	if !slices.Contains(schema.Langs, v) {
		return invalid("lang %q is not supported (use one of %s)", v, strings.Join(schema.Langs, ", "))
	}
	r.lang = v
	return nil
}
