package schema

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSignedFormCheck(t *testing.T) {
	create := Params{"appid": "1001", "clientip": "127.0.0.1", "action": "createorder", "amount": "5",
		"currency": "USD", "paymentMethod": "wallet_a", "sign": "x", "sign_type": "MD5"}
	with := func(p Params, kv ...string) Params {
		q := Params{}
		for k, v := range p {
			q[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			q[kv[i]] = kv[i+1]
		}
		return q
	}
	tests := []struct {
		name  string
		form  SignedForm
		p     Params
		param string // the parameter refused; "" accepted
	}{
		{"create as SPEC has it", CreateForm, create, ""},
		{"every optional field", CreateForm, with(create, "description", "a=b #1", "customerName", "Eve", "customerEmail", "e@x",
			"customerPhone", "+1", "fiatpspSystemId", "3", "allowedPaymentMethods", "wallet_a,balance", "lang", "zh",
			"clientOrderId", "A-1", "return_url", "https://s.test/r?id={paymentId}&x=1", "notify_url", "https://s.test/h"), ""},
		{"ext_ name", CreateForm, with(create, "ext_Cart_9", "1"), ""},
		{"ext_ name of 60", CreateForm, with(create, "ext_"+strings.Repeat("a", 60), "1"), ""},
		{"ext_ name of 61", CreateForm, with(create, "ext_"+strings.Repeat("a", 61), "1"), "ext_" + strings.Repeat("a", 61)},
		{"ext_ with a dash", CreateForm, with(create, "ext_a-b", "1"), "ext_a-b"},
		{"unknown name", CreateForm, with(create, "extra", "1"), "extra"},
		{"webhook status", CreateForm, with(create, "status", "2"), "status"},
		{"webhook status_str", CreateForm, with(create, "status_str", "paid"), "status_str"},
		{"webhook paymentId", CreateForm, with(create, "paymentId", "P1"), "paymentId"},
		{"name with &", CreateForm, with(create, "zzz&paymentMethod", "wallet_a"), "zzz&paymentMethod"},
		{"name with =", CreateForm, with(create, "a=b", "1"), "a=b"},
		{"& in a plain value", CreateForm, with(create, "customerName", "Eve&paymentMethod=balance"), "customerName"},
		{"& alone", CreateForm, with(create, "description", "&"), "description"},
		{"& in sign is not signed", CreateForm, with(create, "sign", "a&b"), ""},
		{"URL piece names a later field", CreateForm, with(create, "notify_url", "https://s.test/?a&return_url=x"), "notify_url"},
		{"URL piece names an earlier field", CreateForm, with(create, "return_url", "https://s.test/?a=1&amount=9"), "return_url"},
		{"URL piece names itself", CreateForm, with(create, "notify_url", "https://e.test/?&notify_url=https://s.test/"), "notify_url"},
		{"URL piece names an ext_ field", CreateForm, with(create, "return_url", "https://s.test/?a=1&ext_x=1"), "return_url"},
		{"URL pieces not names", CreateForm, with(create, "return_url", "https://s.test/?a=1&b=2&&c&Amount=1&paymentId={paymentId}"), ""},
		{"URL piece sign", CreateForm, with(create, "return_url", "https://s.test/?id=1&sign=abc&sign_type=MD5"), ""},
		{"URL first key a name", CreateForm, with(create, "return_url", "https://s.test/?amount=1"), ""},
		{"cancel", CancelForm, Params{"appid": "1", "action": "cancel", "paymentId": "P1", "clientip": "::1", "sign": "x"}, ""},
		{"cancel with a create field", CancelForm, Params{"appid": "1", "action": "cancel", "paymentId": "P1", "amount": "1"}, "amount"},
		{"refund reason with &", RefundForm, Params{"appid": "1", "action": "refund", "paymentId": "P1", "amount": "1", "reason": "a&b"}, "reason"},
		{"refund", RefundForm, Params{"appid": "1", "action": "refund", "paymentId": "P1", "amount": "1", "reason": "a=b",
			"clientRefundId": "R1", "clientip": "::1"}, ""},
		{"resend", ResendForm, Params{"appid": "1", "action": "resend", "paymentId": "P1", "refundId": "rf_1"}, ""},
		{"resend paymentId with &", ResendForm, Params{"appid": "1", "action": "resend", "paymentId": "P1&refundId=rf_1"}, "paymentId"},
		{"any form: plain name", AnySignedForm, Params{"Any_name9": "v"}, ""},
		{"any form: & refused everywhere", AnySignedForm, Params{"return_url": "https://s.test/?a=1&b=2"}, "return_url"},
		{"any form: odd name", AnySignedForm, Params{"a.b": "v"}, "a.b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.form.Check(tt.p)
			var fe *FormError
			switch {
			case tt.param == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.param != "" && !errors.As(err, &fe):
				t.Fatalf("accepted, want %s refused", tt.param)
			case tt.param != "" && fe.Param != tt.param:
				t.Fatalf("refused %s (%v), want %s", fe.Param, err, tt.param)
			}
		})
	}
}

// TestWebhooksAreNoSignedRequest: our webhooks' parameter sets are not
// accepted by any signed call, and their signed strings cannot be a
// request's, which always begins with action= (SECURITY.md).
func TestWebhooksAreNoSignedRequest(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := &Order{ID: "P1", AppID: "1001", Amount: 500, Currency: "USD", Method: MethodWalletA, Description: "gift",
		ClientOrderID: "A-1", CreatedAt: now, Refunded: 100}
	paid := Params{"paymentId": o.ID, "amount": "5.00", "currency": "USD", "status": "2", "status_str": "paid",
		"paymentMethod": "wallet_a", "createdAt": WireTime(now), "completedTime": WireTime(now), "description": "gift",
		"clientOrderId": "A-1"}
	r := &Refund{ID: "rf_1", OrderID: o.ID, Amount: 100, Currency: "USD", Status: RefundSucceeded, ClientRefundID: "R1", Reason: "late"}
	for name, hook := range map[string]Params{"paid": paid, "refund": RefundWebhookParams(o, r)} {
		for _, form := range []SignedForm{CreateForm, CancelForm, RefundForm, ResendForm} {
			if form.Check(hook) == nil {
				t.Fatalf("%s webhook %v is accepted as a signed request", name, hook)
			}
		}
		if base := SignBase(hook); strings.HasPrefix(base, "action=") {
			t.Fatalf("%s webhook's signed string %q looks like a request's", name, base)
		}
	}
}
