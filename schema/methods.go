package schema

import "slices"

// Method is a payment method code of SPEC.md's method table.
type Method string

const (
	MethodWalletA    Method = "wallet_a"
	MethodWalletB    Method = "wallet_b"
	MethodCryptohost Method = "cryptohost"
	MethodBDCard     Method = "bdcard"
	MethodBDPSPA     Method = "bdpsp_a"
	MethodBDPSPB     Method = "bdpsp_b"
	MethodFiatPSP    Method = "fiatpsp"
	MethodCryptoPSP  Method = "cryptopsp"
	MethodUSDTDirect Method = "usdt_direct"
	MethodBalance    Method = "balance"
	MethodSelect     Method = "select"
)

// methodCurrencies is SPEC.md's method table, in its order; the order is also
// the order of the payer's selection page.
var methodCurrencies = []struct {
	m   Method
	cur []string
}{
	{MethodWalletA, []string{"CNY", "USD"}},
	{MethodWalletB, []string{"CNY", "USD"}},
	{MethodCryptohost, []string{"USD"}},
	{MethodBDCard, []string{"BDT", "USD"}},
	{MethodBDPSPA, []string{"BDT", "USD"}},
	{MethodBDPSPB, []string{"BDT", "USD"}},
	{MethodFiatPSP, []string{"RUB", "USD", "EUR", "UAH", "KZT"}},
	{MethodCryptoPSP, []string{"USD", "EUR", "GBP", "BRL", "NZD"}},
	{MethodUSDTDirect, []string{"CNY", "USD", "BDT"}},
	{MethodBalance, []string{"CNY", "USD"}},
	{MethodSelect, []string{"CNY", "USD", "BDT", "EUR", "GBP", "BRL", "NZD"}},
}

// Known reports whether m is a method code of the table.
func (m Method) Known() bool { return m.currencies() != nil }

// Supports reports whether the table allows the currency for the method.
func (m Method) Supports(currency string) bool { return slices.Contains(m.currencies(), currency) }

// Currencies lists the currencies the method takes.
func (m Method) Currencies() []string { return slices.Clone(m.currencies()) }

func (m Method) currencies() []string {
	for _, r := range methodCurrencies {
		if r.m == m {
			return r.cur
		}
	}
	return nil
}

// Selectable reports whether a payer may pick the method on the select page;
// select itself is not a choice.
func (m Method) Selectable() bool { return m.Known() && m != MethodSelect }

// HasQR reports whether the method pays by scanning a QR code, so that the
// create response carries a qrImageUrl.
func (m Method) HasQR() bool { return m == MethodWalletA || m == MethodWalletB }

// WebhookName is the method name merchants receive in webhooks: SPEC.md lists
// "crypto" for the crypto redirect, so cryptohost is reported that way.
func (m Method) WebhookName() string {
	if m == MethodCryptohost {
		return "crypto"
	}
	return string(m)
}

// KnownCurrency reports whether any method takes the currency.
func KnownCurrency(c string) bool {
	for _, r := range methodCurrencies {
		if slices.Contains(r.cur, c) {
			return true
		}
	}
	return false
}

// Langs are the locales of the payer pages; en is the default.
var Langs = []string{"en", "zh", "es"}

// DefaultLang is the language of an order created without one; an order
// record leaves it out (Order.Fields) and reads it back.
const DefaultLang = "en"

// AllMethods lists the method codes in the table's order.
func AllMethods() []Method {
	out := make([]Method, len(methodCurrencies))
	for i, r := range methodCurrencies {
		out[i] = r.m
	}
	return out
}
