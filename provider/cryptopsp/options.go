package cryptopsp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
)

// maxCurrencies bounds the list we keep.
const maxCurrencies = 2000

// Currencies lists the cryptocurrencies the payer can choose (lower-case
// codes, as the provider writes them and as Payment.PayCurrency takes
// them). Entries may be codes or objects with a "currency" code.
func (a *Adapter) Currencies(ctx context.Context) ([]string, error) {
	o, err := a.call(ctx, "currencies", true, http.MethodGet, "/v1/currencies", nil)
	if err != nil {
		return nil, err
	}
	list, ok := o["currencies"].([]any)
	if !ok {
		return nil, fmt.Errorf("cryptopsp currencies: answer has no list: %w", provider.ErrUnavailable)
	}
	var out []string
	for _, e := range list {
		if obj, ok := e.(Object); ok {
			e = obj["currency"]
		}
		c, _ := e.(string)
		c = strings.ToLower(c)
		if validCrypto(c) && len(out) < maxCurrencies {
			out = append(out, c)
		}
	}
	return out, nil
}

// MinAmount is the provider's minimum for a payment in crypto, as its fiat
// equivalent, rounded up to the cent so that an amount at least this much
// is never under the minimum.
func (a *Adapter) MinAmount(ctx context.Context, fiat, crypto string) (provider.Money, error) {
	fiat, crypto = strings.ToUpper(fiat), strings.ToLower(crypto)
	if !decimal.Currency(fiat) || !validCrypto(crypto) {
		return provider.Money{}, errors.New("cryptopsp: minimum amount needs a fiat and a cryptocurrency code")
	}
	to := a.cfg.OutcomeCurrency
	if to == "" {
		to = crypto
	}
	q := url.Values{"currency_from": {crypto}, "currency_to": {to}, "fiat_equivalent": {strings.ToLower(fiat)}}
	o, err := a.call(ctx, "min_amount", true, http.MethodGet, "/v1/min-amount?"+q.Encode(), nil)
	if err != nil {
		return provider.Money{}, err
	}
	lit, _ := Scalar(o["fiat_equivalent"])
	amt, err := decimal.ParseMinor(lit, decimal.Up)
	if err != nil {
		return provider.Money{}, fmt.Errorf("cryptopsp min_amount: fiat_equivalent %q: %w", clip(lit), errors.Join(provider.ErrUnavailable, err))
	}
	return provider.Money{Amount: amt, Currency: fiat}, nil
}

// validCrypto is a cryptocurrency code as the provider writes it: lower-case
// letters and digits ("btc", "usdttrc20").
func validCrypto(c string) bool {
	if c == "" || len(c) > 20 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !(c[i] >= 'a' && c[i] <= 'z' || c[i] >= '0' && c[i] <= '9') {
			return false
		}
	}
	return true
}
