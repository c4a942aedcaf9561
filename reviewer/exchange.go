package reviewer

import (
	"context"
	"errors"
	"math/big"
	"regexp"
	"strings"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// coinUSDT is the coin an exchange must name.
const coinUSDT = "USDT"

// checkDeposit reviews the order's hash in the exchange's deposit history.
// A row not credited yet is checked again (it may still be), not rejected:
// only what cannot change rejects.
func (r *Reviewer) checkDeposit(ctx context.Context, o *schema.Order, n usdt.Network) verdict {
	x, ok := r.exchange(o)
	if !ok {
		return verdict{step: stepLater, reason: reasonBackendDown, note: "no exchange backend"}
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	d, err := x.Deposit(cctx, n.ExchangeNetwork, o.TxHash)
	cancel()
	if v, done := r.exchangeErr(o, err, "deposit not found"); done {
		return v
	}
	ev := "deposit coin=" + d.Coin + " network=" + d.Network + " address=" + d.Address + " amount=" + d.Amount
	switch {
	case !strings.EqualFold(d.Coin, coinUSDT):
		return reject(reasonWrongToken, ev)
	case d.Network != "" && !strings.EqualFold(d.Network, n.ExchangeNetwork):
		return reject(reasonWrongNetwork, ev)
	case !n.Receives(d.Address):
		return reject(reasonWrongAddress, ev)
	case !sameAmount(d.Amount, o.PayableAmount):
		return wrongAmount(ev+" want="+o.PayableAmount, micros(d.Amount), micros(o.PayableAmount))
	case !d.InsertTime.IsZero() && d.InsertTime.Before(o.CreatedAt.Add(-clockSkew)):
		return reject(reasonTooOld, ev+" credited="+schema.WireTime(d.InsertTime))
	case !d.Success:
		return later(reasonUnconfirmed, ev+" not credited")
	}
	return verdict{step: stepApprove, evidence: ev}
}

// checkPayment reviews the exchange's payment record for the order
// (exchange pay: the payer paid inside the exchange).
func (r *Reviewer) checkPayment(ctx context.Context, o *schema.Order) verdict {
	x, ok := r.exchange(o)
	if !ok {
		return verdict{step: stepLater, reason: reasonBackendDown, note: "no exchange backend"}
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	p, err := x.Payment(cctx, o.ID)
	cancel()
	if v, done := r.exchangeErr(o, err, "payment not found"); done {
		return v
	}
	ev := "payment coin=" + p.Coin + " amount=" + p.Amount + " tx=" + p.TxID
	switch {
	case !strings.EqualFold(p.Coin, coinUSDT):
		return reject(reasonWrongToken, ev)
	case !sameAmount(p.Amount, o.PayableAmount):
		return wrongAmount(ev+" want="+o.PayableAmount, micros(p.Amount), micros(o.PayableAmount))
	case !p.Success:
		return later(reasonUnconfirmed, ev+" not successful")
	}
	return verdict{step: stepApprove, evidence: ev}
}

// exchange is the order's exchange backend, counted as an error when none
// is configured.
func (r *Reviewer) exchange(o *schema.Order) (usdt.Exchange, bool) {
	x, ok := r.d.Backends.Exchange(o.Sandbox)
	if !ok {
		r.m.errors.WithLabelValues(backendExchange).Inc()
	}
	return x, ok
}

// exchangeErr turns an exchange call's error into a verdict: not found is
// "not yet", anything else a failing backend.
func (r *Reviewer) exchangeErr(o *schema.Order, err error, missing string) (verdict, bool) {
	switch {
	case err == nil:
		return verdict{}, false
	case errors.Is(err, usdt.ErrNotFound):
		return notFound(missing), true
	}
	r.m.errors.WithLabelValues(backendExchange).Inc()
	r.log.Warn("exchange backend failed; review retried", "order", o.ID, "err", err)
	return verdict{step: stepLater, reason: reasonBackendDown, note: short(err.Error())}, true
}

// decimalLit is a plain decimal literal: no sign, exponent or fraction bar.
var decimalLit = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// micros is a plain decimal literal in units of 10^-18 (the finest
// token's), to say which of two amounts is larger; nil for anything else.
func micros(a string) *big.Int {
	if !decimalLit.MatchString(a) {
		return nil
	}
	x, ok := new(big.Rat).SetString(a)
	if !ok {
		return nil
	}
	x.Mul(x, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)))
	return new(big.Int).Quo(x.Num(), x.Denom())
}

// sameAmount compares two decimal literals exactly ("12.3470610" equals
// "12.347061"); anything but a plain decimal is never equal.
func sameAmount(a, b string) bool {
	if !decimalLit.MatchString(a) || !decimalLit.MatchString(b) {
		return false
	}
	x, okx := new(big.Rat).SetString(a)
	y, oky := new(big.Rat).SetString(b)
	return okx && oky && x.Cmp(y) == 0
}
