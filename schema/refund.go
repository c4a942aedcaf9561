package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// RefundStatus is where a refund stands: pending while the money moves,
// then succeeded or failed, both final.
type RefundStatus string

const (
	RefundPending   RefundStatus = "pending"
	RefundSucceeded RefundStatus = "succeeded"
	RefundFailed    RefundStatus = "failed"
)

// Final reports a status a refund never leaves.
func (s RefundStatus) Final() bool { return s == RefundSucceeded || s == RefundFailed }

// Refund kinds: how the money goes back.
const (
	RefundKindBalance  = "balance"  // the merchant's balance to the payer's, at once
	RefundKindProvider = "provider" // the provider family's refund call
)

// Refund is one refund of a paid order. It is stored as JSON (the tags are
// part of the Redis layout) in the order's refunds hash, which the refund
// scripts change with the order and its event; numbers are strings there,
// so the scripts' JSON round trip keeps them exact.
type Refund struct {
	ID             string       `json:"id"`
	OrderID        string       `json:"oid"`
	ClientRefundID string       `json:"crid,omitempty"`
	Amount         Amount       `json:"amt,string"`
	Currency       string       `json:"cur"`
	Reason         string       `json:"why,omitempty"`
	Status         RefundStatus `json:"st"`
	Kind           string       `json:"kind"`
	Payer          string       `json:"payer,omitempty"`    // balance: whose balance is credited
	Merchant       string       `json:"merchant,omitempty"` // whose balance is debited
	Error          string       `json:"err,omitempty"`      // why it failed
	ProviderRef    string       `json:"pref,omitempty"`     // the provider's id of the refund
	CreatedMs      int64        `json:"ct,string"`
	UpdatedMs      int64        `json:"ut,string"`
}

// CreatedAt is when the refund was asked for.
func (r *Refund) CreatedAt() time.Time { return msTime(r.CreatedMs) }

// UpdatedAt is when the refund last changed.
func (r *Refund) UpdatedAt() time.Time { return msTime(r.UpdatedMs) }

// DecodeRefund reads one refund record.
func DecodeRefund(raw string) (Refund, error) {
	var r Refund
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return Refund{}, fmt.Errorf("refund record: %w", err)
	}
	return r, nil
}

// NewRefundID is a refund's id: rf_ and 26 random characters. It never
// parses as an order id, so a webhook delivery keyed by it never meets an
// order's.
func NewRefundID(random string) string { return RefundIDPrefix + random }

// RefundIDPrefix starts every refund id.
const RefundIDPrefix = "rf_"

// IsRefundID reports an id of NewRefundID's form.
func IsRefundID(id string) bool { return strings.HasPrefix(id, RefundIDPrefix) }

// DecodeRefunds reads an order's refunds hash (HGETALL), oldest first;
// the clientRefundId entries are skipped.
func DecodeRefunds(h map[string]string) ([]Refund, error) {
	out := make([]Refund, 0, len(h))
	for k, v := range h {
		if !IsRefundID(k) {
			continue
		}
		r, err := DecodeRefund(v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedMs != out[j].CreatedMs {
			return out[i].CreatedMs < out[j].CreatedMs
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// RefundView is a refund as merchants read it: in the refund answer and in
// action=order's refunds.
type RefundView struct {
	RefundID       string `json:"refundId"`
	PaymentID      string `json:"paymentId"`
	ClientRefundID string `json:"clientRefundId,omitempty"`
	Amount         string `json:"amount"`
	Currency       string `json:"currency"`
	Reason         string `json:"reason,omitempty"`
	Status         string `json:"status"`
	Error          string `json:"error,omitempty"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// ViewRefund renders r for merchants.
func ViewRefund(r *Refund) RefundView {
	return RefundView{
		RefundID: r.ID, PaymentID: r.OrderID, ClientRefundID: r.ClientRefundID, Amount: r.Amount.String(),
		Currency: r.Currency, Reason: r.Reason, Status: string(r.Status), Error: r.Error,
		CreatedAt: WireTime(r.CreatedAt()), UpdatedAt: WireTime(r.UpdatedAt()),
	}
}

// RefundIndexMember names a pending refund in its shard's refund index.
func RefundIndexMember(orderID, refundID string) string { return orderID + " " + refundID }

// ParseRefundIndexMember splits a RefundIndexMember.
func ParseRefundIndexMember(m string) (orderID, refundID string, ok bool) {
	return strings.Cut(m, " ")
}

// RefundWebhookParams are the refund webhook's form parameters, without
// sign and sign_type (signed with MD5 like the paid webhook): the event, the
// order, the refund and the order's refunded total after it.
func RefundWebhookParams(o *Order, r *Refund) Params {
	p := Params{
		"event":          "refund",
		"paymentId":      o.ID,
		"refundId":       r.ID,
		"amount":         r.Amount.String(),
		"currency":       r.Currency,
		"refundStatus":   string(r.Status),
		"refundedAmount": o.Refunded.String(),
		"createdAt":      WireTime(r.CreatedAt()),
		"updatedAt":      WireTime(r.UpdatedAt()),
	}
	for k, v := range map[string]string{"clientRefundId": r.ClientRefundID, "reason": r.Reason,
		"clientOrderId": o.ClientOrderID} {
		if v != "" {
			p[k] = v
		}
	}
	return p
}
