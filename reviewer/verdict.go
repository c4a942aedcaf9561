package reviewer

import (
	"math/big"
	"strings"

	"github.com/paygate/gateway/schema"
)

// step is what a check concluded.
type step int

const (
	stepLater    step = iota // not decidable yet: check again, until the window ends
	stepApprove              // the transfer pays the order
	stepReject               // it does not, for reason
	stepEscalate             // an administrator must decide, for reason
)

// Reasons of this package beyond those listed on usdt.Decision.
const (
	reasonUnknownNetwork = "unknown_network" // the order's network is not configured (any more)
	reasonWrongNetwork   = "wrong_network"   // the exchange credited it on another network
	reasonInvalidOrder   = "invalid_order"   // the order's payable amount does not fit the token
)

// verdict is a check's conclusion. For stepLater, reason is what the order
// waits for if the window ends now: unconfirmed (not found, not deep
// enough, not credited) or backend_down (the backend failed).
type verdict struct {
	step     step
	reason   string
	evidence string
	note     string
	// For stepLater, what the payer is told meanwhile: wait is
	// schema.ReviewNotFound when nothing was found (else the transfer was
	// found and is confirming, or a backend failed), have and need the
	// confirmations seen and required on a chain.
	wait       string
	have, need int64
	// moveTo is, for a wrong_amount rejection, the payable amount the
	// transfer to our address does carry: the order it pays gets the hash.
	moveTo string
	// finding is, for a wrong_amount rejection, whether the transfer
	// carried less or more than the order asked (schema.USDTUnderpaid,
	// USDTOverpaid): the merchant is told which.
	finding string
}

func later(reason, evidence string) verdict {
	return verdict{step: stepLater, reason: reason, evidence: evidence}
}

// notFound: the transaction (deposit, payment) is not known yet.
func notFound(evidence string) verdict {
	v := later(reasonUnconfirmed, evidence)
	v.wait = schema.ReviewNotFound
	return v
}

// progress is the review state of a stepLater verdict.
func (v verdict) progress() string {
	switch {
	case v.reason == reasonBackendDown:
		return schema.ReviewRetrying
	case v.wait != "":
		return v.wait
	}
	return schema.ReviewConfirming
}

func reject(reason, evidence string) verdict {
	return verdict{step: stepReject, reason: reason, evidence: evidence}
}

// wrongAmount is the rejection of a transfer of got units where want
// were asked for.
func wrongAmount(evidence string, got, want *big.Int) verdict {
	v := reject(reasonWrongAmount, evidence)
	if got != nil && want != nil {
		v.finding = schema.USDTUnderpaid
		if got.Cmp(want) > 0 {
			v.finding = schema.USDTOverpaid
		}
	}
	return v
}

// both is dual mode: the chain and the exchange must both approve. One
// approving and the other rejecting is for an administrator; either not yet
// decided means checking again (a backend failure wins as the reason, so
// the window's end says backend_down while one is failing).
func both(chain, exch verdict) verdict {
	ev := "chain: " + chain.evidence + "; exchange: " + exch.evidence
	note := strings.Trim(chain.note+"; "+exch.note, "; ")
	switch {
	case chain.step == stepApprove && exch.step == stepApprove:
		return verdict{step: stepApprove, evidence: ev}
	case chain.step == stepEscalate:
		return chain
	case exch.step == stepEscalate:
		return exch
	case chain.step == stepLater || exch.step == stepLater:
		v := later(reasonUnconfirmed, ev)
		if chain.reason == reasonBackendDown || exch.reason == reasonBackendDown {
			v.reason = reasonBackendDown
		}
		if chain.wait == schema.ReviewNotFound || exch.wait == schema.ReviewNotFound {
			v.wait = schema.ReviewNotFound
		}
		v.note, v.have, v.need = note, chain.have, chain.need
		return v
	case chain.step == stepReject && exch.step == stepReject:
		return verdict{step: stepReject, reason: chain.reason, evidence: ev, finding: chain.finding}
	}
	return verdict{step: stepEscalate, reason: reasonDisagree, evidence: ev}
}

// Reasons named on usdt.Decision.
const (
	reasonWrongAmount  = "wrong_amount"
	reasonWrongAddress = "wrong_address"
	reasonWrongToken   = "wrong_token"
	reasonTooOld       = "too_old"
	reasonFailedTx     = "failed_tx"
	reasonUnconfirmed  = "unconfirmed"
	reasonBackendDown  = "backend_down"
	reasonDisagree     = "disagree"
)
