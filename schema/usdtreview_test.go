package schema

import (
	"testing"
	"time"
)

// TestUSDTReviewOf: every moment of a review has a state and a reason.
func TestUSDTReviewOf(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	base := Order{ID: "P1", Method: MethodUSDTDirect, Status: StatusReady, Network: "TRC20"}
	with := func(f func(o *Order)) Order { o := base; f(&o); return o }
	tests := []struct {
		name   string
		o      Order
		state  string
		reason string
		admin  bool
	}{
		{"no hash yet", with(func(o *Order) { o.NextAction = NextUSDTDirectPay }), "", "", false},
		{"not usdt_direct", with(func(o *Order) { o.Method = MethodWalletA }), "", "", false},
		{"submitted, not checked", with(func(o *Order) { o.NextAction, o.TxHash = NextUSDTReview, "h" }), ReviewQueued, "submitted", false},
		{"checking", with(func(o *Order) {
			o.NextAction, o.TxHash, o.ReviewProgress = NextUSDTReview, "h", USDTProgress{Step: ReviewChecking, Until: at}
		}), ReviewChecking, "checking", false},
		{"not found yet", with(func(o *Order) {
			o.NextAction, o.TxHash, o.ReviewProgress = NextUSDTReview, "h", USDTProgress{Step: ReviewNotFound, NextCheck: at, Until: at.Add(time.Hour)}
		}), ReviewNotFound, "not_found", false},
		{"confirming", with(func(o *Order) {
			o.NextAction, o.TxHash, o.ReviewProgress = NextUSDTReview, "h", USDTProgress{Step: ReviewConfirming, NextCheck: at, Confirmations: 3, Required: 30}
		}), ReviewConfirming, "unconfirmed", false},
		{"waiting for an administrator", with(func(o *Order) {
			o.NextAction, o.TxHash, o.Review, o.ReviewReason = NextUSDTReview, "h", "waiting", "disagree"
		}), ReviewWaitingAdmin, "disagree", false},
		{"rejected by the reviewer", with(func(o *Order) {
			o.NextAction, o.Review, o.ReviewReason = NextUSDTDirectPay, "rejected", "wrong_amount"
		}), ReviewRejected, "wrong_amount", false},
		{"rejected by an administrator", with(func(o *Order) {
			o.NextAction, o.Review, o.ReviewReason = NextUSDTDirectPay, "rejected", "sent to the wrong address"
		}), ReviewRejected, "sent to the wrong address", true},
		{"approved", with(func(o *Order) { o.Status, o.TxHash, o.Review = StatusPaid, "h", "approved" }), ReviewApproved, "matched", false},
		{"closed before a decision", with(func(o *Order) {
			o.Status, o.NextAction, o.TxHash = StatusCancelled, NextUSDTReview, "h"
		}), ReviewClosed, "order_closed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := USDTReviewOf(&tt.o)
			if tt.state == "" {
				if v != nil {
					t.Fatalf("review %+v, want none", v)
				}
				return
			}
			if v == nil || v.State != tt.state || v.Reason != tt.reason || v.ByAdministrator != tt.admin || v.Describe() == "" {
				t.Fatalf("review %+v, want %s %q admin=%v", v, tt.state, tt.reason, tt.admin)
			}
		})
	}
	o := with(func(o *Order) {
		o.NextAction, o.TxHash, o.ReviewProgress = NextUSDTReview, "h", USDTProgress{Step: ReviewConfirming, NextCheck: at, Until: at.Add(time.Hour), Confirmations: 3, Required: 30}
	})
	back, err := OrderFromFields(fieldMap(o.Fields()))
	if err != nil || back.ReviewProgress != o.ReviewProgress {
		t.Fatalf("progress through the hash: %+v %v", back.ReviewProgress, err)
	}
}

func fieldMap(f []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = f[i+1]
	}
	return m
}
