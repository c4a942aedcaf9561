package schema

// What the payer pages show and the command side computes. They live here
// because checkout and command never import each other (DESIGN.md): the
// command side fills these, the checkout renders them.

// NextBalanceLogin is the next action of an order whose payer chose balance
// on the select page: the payer logs in at /merchant/login and confirms.
const NextBalanceLogin = "balance_login"

// NextUSDTReview is the next action of a usdt_direct order whose payer
// submitted a transaction hash: nothing is asked of the payer any more, the
// review (automatic or by an administrator) decides.
const NextUSDTReview = "usdt_review"

// AmountLimits bound the order amount a method takes, in the order's
// currency; zero means no bound on that side.
type AmountLimits struct {
	Min Amount
	Max Amount
}

// Allows reports whether amt is within the limits.
func (l AmountLimits) Allows(amt Amount) bool {
	return (l.Min == 0 || amt >= l.Min) && (l.Max == 0 || amt <= l.Max)
}

// MethodOption is one method on the select page for one order.
type MethodOption struct {
	Method  Method
	Limits  AmountLimits
	Enabled bool
	// Reason says why a disabled method cannot be chosen: "below_min",
	// "above_max" (the page words it from its catalogue).
	Reason string
}

// SystemOption is one fiatpsp payment system for one order, with the FX
// quote where the system's currency differs from the order's.
type SystemOption struct {
	ID        int
	Name      string
	Currency  string
	Quote     Amount // what the payer is charged, in Currency; the order amount when no conversion
	Rate      string // Currency per order currency unit, empty when no conversion
	Available bool   // false when no rate is set for the pair
}

// CryptoOption is one cryptopsp cryptocurrency for one order, with the
// provider's minimum in the order's currency.
type CryptoOption struct {
	Currency string
	Min      Amount
	Enabled  bool
}

// USDTNetwork is a chain a usdt_direct payer may send on, and our address
// there.
type USDTNetwork struct {
	Name    string // TRC20, BEP20, ...
	Address string
}
