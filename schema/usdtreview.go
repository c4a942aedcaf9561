package schema

import (
	"fmt"
	"strconv"
	"time"
)

// A usdt_direct review has a state at every moment, which the payer's
// page, the merchant's action=order and the administrator's tools all
// derive from the order by USDTReviewOf, so they never disagree.
const (
	ReviewQueued       = "queued"        // submitted; no reviewer has looked yet
	ReviewChecking     = "checking"      // a reviewer is asking the chain or the exchange now
	ReviewNotFound     = "not_found"     // the transaction is not found (yet); checked again at NextCheck
	ReviewConfirming   = "confirming"    // found and matching, waiting for confirmations n of N
	ReviewRetrying     = "retrying"      // the chain or exchange could not be asked; checked again at NextCheck
	ReviewWaitingAdmin = "waiting_admin" // an administrator decides (Reason says why)
	ReviewApproved     = "approved"      // the transfer paid the order
	ReviewRejected     = "rejected"      // the transfer is not this order's (Reason); the order is payable again
	ReviewClosed       = "closed"        // the order closed before the review decided
)

// What a review's outcome found about the transfer, carried on the order's
// event (EvUSDT) for the merchant's usdt.* events: a transfer short of or
// above the amount (rejected: only the exact amount pays), or one that paid
// the order after it had ended unpaid.
const (
	USDTUnderpaid = "underpaid"
	USDTOverpaid  = "overpaid"
	USDTLate      = "late"
)

// USDTProgress is where an automatic review stands between its checks. It
// is written by the reviewer without a version or an event: it is not a
// change of the order (nothing a merchant is notified of, nothing the
// projection keeps), only what the review is doing about it, and it is
// cleared by the next submit and by the review's outcome.
type USDTProgress struct {
	Step          string    // ReviewChecking, ReviewNotFound, ReviewConfirming or ReviewRetrying
	NextCheck     time.Time // when the reviewer looks again
	Until         time.Time // the review window's end: undecided then, an administrator decides
	Confirmations int64     // ReviewConfirming: blocks seen on top of the transfer
	Required      int64     // ReviewConfirming: blocks the network asks for (0: the exchange's crediting)
}

// Hash fields of USDTProgress (see the order's other fields).
const (
	FReviewStep  = "rvs"
	FReviewNext  = "rvn"
	FReviewUntil = "rvu"
	FReviewConf  = "rvc"
	FReviewReq   = "rvq"
)

// progressFields renders p as hash fields, for Order.Fields.
func (p USDTProgress) fields(add func(k any, v string)) {
	add(FReviewStep, p.Step)
	add(FReviewNext, msField(p.NextCheck))
	add(FReviewUntil, msField(p.Until))
	if p.Confirmations != 0 {
		add(FReviewConf, strconv.FormatInt(p.Confirmations, 10))
	}
	if p.Required != 0 {
		add(FReviewReq, strconv.FormatInt(p.Required, 10))
	}
}

func progressFrom(get func(string) string, num func(string) int64) USDTProgress {
	return USDTProgress{Step: get(FReviewStep), NextCheck: msTime(num(FReviewNext)), Until: msTime(num(FReviewUntil)),
		Confirmations: num(FReviewConf), Required: num(FReviewReq)}
}

// USDTReviewView is a usdt_direct order's review as merchants read it in
// GET /api/order (and the CLI prints): its state, and why.
type USDTReviewView struct {
	State  string `json:"state"`
	Reason string `json:"reason"` // a machine word, or an administrator's text (rejected, waiting_admin)
	// ByAdministrator: Reason is an administrator's own words.
	ByAdministrator       bool   `json:"byAdministrator,omitempty"`
	TxHash                string `json:"txHash,omitempty"`
	NextCheckAt           string `json:"nextCheckAt,omitempty"`
	CheckUntil            string `json:"checkUntil,omitempty"`
	Confirmations         int64  `json:"confirmations,omitempty"`
	ConfirmationsRequired int64  `json:"confirmationsRequired,omitempty"`
}

// Reasons of the states that carry none of their own.
var stateReason = map[string]string{
	ReviewQueued: "submitted", ReviewChecking: "checking", ReviewNotFound: "not_found", ReviewConfirming: "unconfirmed",
	ReviewRetrying: "backend_down", ReviewApproved: "matched", ReviewClosed: "order_closed",
}

// USDTReviewOf is o's review, nil when o is not usdt_direct or no
// transaction was ever submitted or decided for it.
func USDTReviewOf(o *Order) *USDTReviewView {
	if o.Method != MethodUSDTDirect {
		return nil
	}
	v := &USDTReviewView{TxHash: o.TxHash, Reason: o.ReviewReason}
	switch {
	case o.Review == "approved":
		v.State = ReviewApproved
	case o.Review == "rejected" && o.TxHash == "":
		v.State = ReviewRejected
	case o.Review == "waiting":
		v.State = ReviewWaitingAdmin
	case o.NextAction == NextUSDTReview && o.TxHash != "" && o.Status != StatusReady && o.Status != StatusPaid:
		v.State = ReviewClosed
	case o.NextAction == NextUSDTReview && o.TxHash != "":
		p := o.ReviewProgress
		v.State = p.Step
		if v.State == "" {
			v.State = ReviewQueued
		}
		v.NextCheckAt, v.CheckUntil = WireTime(p.NextCheck), WireTime(p.Until)
		v.Confirmations, v.ConfirmationsRequired = p.Confirmations, p.Required
	default:
		return nil
	}
	if v.Reason == "" || v.State != ReviewRejected && v.State != ReviewWaitingAdmin {
		v.Reason = stateReason[v.State]
	}
	v.ByAdministrator = (v.State == ReviewRejected || v.State == ReviewWaitingAdmin) && !MachineReviewReason(v.Reason)
	return v
}

// machineReasons are the words a reviewer writes (usdt.Decision.Reason);
// anything else in ReviewReason is an administrator's own text.
var machineReasons = map[string]bool{
	"wrong_amount": true, "wrong_address": true, "wrong_token": true, "wrong_network": true, "too_old": true,
	"failed_tx": true, "hash_used": true, "not_found": true, "unconfirmed": true, "backend_down": true,
	"disagree": true, "unknown_network": true, "invalid_order": true,
}

// MachineReviewReason reports whether reason is a reviewer's word rather
// than an administrator's text.
func MachineReviewReason(reason string) bool { return machineReasons[reason] }

// Describe is the review in one line of plain English, for the CLI.
func (v *USDTReviewView) Describe() string {
	switch v.State {
	case ReviewQueued:
		return "submitted, waiting for a reviewer to check it"
	case ReviewChecking:
		return "a reviewer is checking the transaction now" + until(v)
	case ReviewNotFound:
		return "transaction not found yet; next check " + v.NextCheckAt + until(v)
	case ReviewConfirming:
		if v.ConfirmationsRequired > 0 {
			return fmt.Sprintf("found; waiting for confirmations %d of %d; next check %s%s", v.Confirmations, v.ConfirmationsRequired, v.NextCheckAt, until(v))
		}
		return "found; waiting for the exchange to credit it; next check " + v.NextCheckAt + until(v)
	case ReviewRetrying:
		return "the chain or exchange could not be asked; next check " + v.NextCheckAt + until(v)
	case ReviewWaitingAdmin:
		return "waiting for an administrator: " + v.Reason
	case ReviewApproved:
		return "approved: the transfer paid the order"
	case ReviewRejected:
		return "rejected: " + v.Reason
	case ReviewClosed:
		return "the order closed before the review decided"
	}
	return v.State
}

func until(v *USDTReviewView) string {
	if v.CheckUntil == "" {
		return ""
	}
	return "; an administrator decides if still undecided at " + v.CheckUntil
}
