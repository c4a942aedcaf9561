package command

import (
	"context"
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

func TestCreateValidation(t *testing.T) {
	h := newRedisHarness(t)
	disabled, err := h.accounts.Create(context.Background(), newAccount("off", true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.accounts.SetDisabled(context.Background(), disabled.AppID, true); err != nil {
		t.Fatal(err)
	}
	key := h.acct.APIKey
	type edit func(p schema.Params)
	set := func(kv ...string) edit {
		return func(p schema.Params) {
			for i := 0; i < len(kv); i += 2 {
				p[kv[i]] = kv[i+1]
			}
		}
	}
	del := func(name string) edit { return func(p schema.Params) { delete(p, name) } }
	tests := []struct {
		name    string
		edit    edit
		key     string // signing key; "" means the merchant's
		unsign  bool   // send without sign
		status  int
		kind    string
		msgPart string
	}{
		{"valid", set(), "", false, 200, "", ""},
		{"missing appid", del("appid"), "", false, 400, "missing_parameter", "appid"},
		{"missing clientip", del("clientip"), "", false, 400, "missing_parameter", "clientip"},
		{"missing action", del("action"), "", false, 400, "missing_parameter", "action"},
		{"missing amount", del("amount"), "", false, 400, "missing_parameter", "amount"},
		{"empty currency", set("currency", ""), "", false, 400, "missing_parameter", "currency"},
		{"missing paymentMethod", del("paymentMethod"), "", false, 400, "missing_parameter", "paymentMethod"},
		{"missing sign", set(), "", true, 400, "missing_parameter", "sign"},
		{"missing field reported before unknown appid", func(p schema.Params) { p["appid"] = "999999"; delete(p, "amount") }, "", false, 400, "missing_parameter", "amount"},
		{"unknown appid", set("appid", "999999"), "", false, 401, "invalid_appid", ""},
		{"disabled merchant", set("appid", disabled.AppID), disabled.APIKey, false, 403, "merchant_disabled", ""},
		{"disabled before bad sign", set("appid", disabled.AppID), "wrong", false, 403, "merchant_disabled", ""},
		{"wrong key", set(), "not-the-key", false, 401, "invalid_sign", ""},
		{"sign_type not MD5", set("sign_type", "SHA256"), "", false, 400, "invalid_sign_type", "MD5"},
		{"sign_type MD5 is not signed", set("sign_type", "MD5"), "", false, 200, "", ""},
		{"bad sign before clientip", set("clientip", "203.0.113.9"), "wrong", false, 401, "invalid_sign", ""},
		{"clientip mismatch", set("clientip", "203.0.113.9"), "", false, 403, "clientip_mismatch", "Request IP does not match clientip"},
		{"clientip not an IP", set("clientip", "localhost"), "", false, 403, "clientip_mismatch", ""},
		{"clientip before business rules", set("clientip", "203.0.113.9", "amount", "-1"), "", false, 403, "clientip_mismatch", ""},
		{"action not createorder", set("action", "create"), "", false, 400, "invalid_parameter", "action"},
		{"zero amount", set("amount", "0"), "", false, 400, "invalid_parameter", "amount"},
		{"negative amount", set("amount", "-5"), "", false, 400, "invalid_parameter", "amount"},
		{"three decimals", set("amount", "1.005"), "", false, 400, "invalid_parameter", "amount"},
		{"exponent amount", set("amount", "1e3"), "", false, 400, "invalid_parameter", "amount"},
		{"amount over the ceiling", set("amount", "1000000000.01"), "", false, 400, "invalid_parameter", "amount"},
		{"lower-case currency", set("currency", "cny"), "", false, 400, "invalid_parameter", "currency"},
		{"unknown currency", set("currency", "XYZ"), "", false, 400, "invalid_parameter", "currency"},
		{"unknown method", set("paymentMethod", "paypal"), "", false, 400, "invalid_parameter", "paymentMethod"},
		{"method and currency mismatch", set("currency", "EUR"), "", false, 400, "unsupported_method", "wallet_a does not support currency EUR"},
		{"bdt with wallet", set("currency", "BDT"), "", false, 400, "unsupported_method", "BDT"},
		{"fiatpspSystemId without fiatpsp", set("fiatpspSystemId", "12"), "", false, 400, "invalid_parameter", "fiatpspSystemId"},
		{"fiatpspSystemId not an integer", set("paymentMethod", "fiatpsp", "currency", "RUB", "fiatpspSystemId", "abc"), "", false, 400, "invalid_parameter", "fiatpspSystemId"},
		{"fiatpspSystemId zero", set("paymentMethod", "fiatpsp", "currency", "RUB", "fiatpspSystemId", "0"), "", false, 400, "invalid_parameter", "fiatpspSystemId"},
		{"fiatpspSystemId leading zero", set("paymentMethod", "fiatpsp", "currency", "RUB", "fiatpspSystemId", "012"), "", false, 400, "invalid_parameter", "fiatpspSystemId"},
		{"allowedPaymentMethods without select", set("allowedPaymentMethods", "wallet_a"), "", false, 400, "invalid_parameter", "allowedPaymentMethods"},
		{"allowed unknown code", set("paymentMethod", "select", "allowedPaymentMethods", "wallet_a,nope"), "", false, 400, "invalid_parameter", "nope"},
		{"allowed select itself", set("paymentMethod", "select", "allowedPaymentMethods", "select"), "", false, 400, "invalid_parameter", "select"},
		{"allowed code off the currency", set("paymentMethod", "select", "allowedPaymentMethods", "bdcard"), "", false, 400, "invalid_parameter", "bdcard does not support currency CNY"},
		{"allowed balance only for USD", set("paymentMethod", "select", "allowedPaymentMethods", "balance"), "", false, 400, "invalid_parameter", "balance"},
		{"allowed twice", set("paymentMethod", "select", "allowedPaymentMethods", "wallet_a,wallet_a"), "", false, 400, "invalid_parameter", "twice"},
		{"allowed empty", set("paymentMethod", "select", "allowedPaymentMethods", ""), "", false, 400, "invalid_parameter", "allowedPaymentMethods"},
		{"allowed valid", set("paymentMethod", "select", "allowedPaymentMethods", "wallet_a,usdt_direct"), "", false, 200, "", ""},
		{"unknown lang", set("lang", "fr"), "", false, 400, "invalid_parameter", "lang"},
		{"clientOrderId too long", set("clientOrderId", strings.Repeat("a", 65)), "", false, 400, "invalid_parameter", "clientOrderId"},
		{"clientOrderId with space", set("clientOrderId", "a b"), "", false, 400, "invalid_parameter", "clientOrderId"},
		{"clientOrderId empty", set("clientOrderId", ""), "", false, 400, "invalid_parameter", "clientOrderId"},
		{"clientOrderId longest", set("clientOrderId", strings.Repeat("a", 64)), "", false, 200, "", ""},
		{"description 256 runes", set("description", strings.Repeat("订", 256)), "", false, 200, "", ""},
		{"description 257 runes", set("description", strings.Repeat("订", 257)), "", false, 400, "invalid_parameter", "description"},
		{"customerName too long", set("customerName", strings.Repeat("n", 129)), "", false, 400, "invalid_parameter", "customerName"},
		{"customerEmail without @", set("customerEmail", "nobody"), "", false, 400, "invalid_parameter", "customerEmail"},
		{"return_url not http", set("return_url", "ftp://shop.test/x"), "", false, 400, "invalid_parameter", "return_url"},
		{"notify_url relative", set("notify_url", "/hook"), "", false, 400, "invalid_parameter", "notify_url"},
		{"notify_url too long", set("notify_url", "https://shop.test/"+strings.Repeat("x", 2048)), "", false, 400, "invalid_parameter", "notify_url"},
		{"return_url placeholder", set("return_url", "https://shop.test/done?id={paymentId}&x=1"), "", false, 200, "", ""},
		{"ext_ parameter is signed and ignored", set("ext_cart", "1"), "", false, 200, "", ""},
		{"unknown parameter", set("extra", "1"), "", false, 400, "invalid_parameter", `"extra"`},
		{"bare ext_ prefix", set("ext_", "1"), "", false, 400, "invalid_parameter", `"ext_"`},
		{"name with &", set("zzz&paymentMethod", "wallet_a"), "", false, 400, "invalid_parameter", `"zzz&paymentMethod"`},
		{"webhook name status", set("status", "2"), "", false, 400, "invalid_parameter", `"status"`},
		{"webhook name paymentId", set("paymentId", "P1"), "", false, 400, "invalid_parameter", `"paymentId"`},
		{"& in customerName", set("customerName", "Eve&paymentMethod=balance"), "", false, 400, "invalid_parameter", "customerName"},
		{"& in description", set("description", "Tom & Jerry"), "", false, 400, "invalid_parameter", "description"},
		{"& in clientip", set("clientip", "127.0.0.1&x"), "", false, 400, "invalid_parameter", "clientip"},
		{"= in description", set("description", "size=XL"), "", false, 200, "", ""},
		{"return_url piece names a parameter", set("return_url", "https://shop.test/r?x=1&paymentMethod=balance"), "", false, 400, "invalid_parameter", "return_url"},
		{"return_url piece names an ext_ parameter", set("return_url", "https://shop.test/r?x=1&ext_a=1"), "", false, 400, "invalid_parameter", "return_url"},
		{"notify_url piece names a parameter", set("notify_url", "https://shop.test/h?x=1&amount=1"), "", false, 400, "invalid_parameter", "notify_url"},
		{"return_url first query key may be a name", set("return_url", "https://shop.test/r?amount=1&id={paymentId}"), "", false, 200, "", ""},
		{"return_url carries its own sign", set("return_url", "https://shop.test/r?id={paymentId}&sign=abc"), "", false, 200, "", ""},
		{"live merchant without provider", set("appid", h.live.AppID), h.live.APIKey, false, 400, "method_unavailable", "wallet_a"},
		{"live merchant select", set("appid", h.live.AppID, "paymentMethod", "select"), h.live.APIKey, false, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.baseParams()
			tt.edit(p)
			k := key
			if tt.key != "" {
				k = tt.key
			}
			if !tt.unsign {
				p = signed(p, k)
			}
			r := h.post(p)
			if r.Status != tt.status || r.Body.Error != tt.kind || !strings.Contains(r.Body.Msg, tt.msgPart) {
				t.Fatalf("got %d %s, want %d %s containing %q", r.Status, r.Raw, tt.status, tt.kind, tt.msgPart)
			}
			if tt.status != 200 && r.Body.Code != tt.status {
				t.Fatalf("error body code %d, want %d", r.Body.Code, tt.status)
			}
		})
	}
}
