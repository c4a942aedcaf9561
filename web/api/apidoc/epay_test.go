package apidoc

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// TestEpayDocumentHoldsTheProtocolsAnswers validates answers in the shapes
// the protocol's reference implementation gives (api.php, mapi.php) against
// epay.json with the validator the e2e tests use, so the document the door
// is checked against takes the protocol's answers and refuses drift: a
// success without its order id, a field the protocol does not have, a
// refusal with a positive code.
func TestEpayDocumentHoldsTheProtocolsAnswers(t *testing.T) {
	v := epayValidator(t)
	order := `"trade_no":"0a1b2c3d4e5f6a7b8c9d","out_trade_no":"A1","type":"t1","pid":"1001","addtime":"2026-11-28 10:04:05","endtime":null,"name":"Box","money":"12.30","param":null,"buyer":null,"status":"0"`
	tests := []struct {
		name, method, url, body string
		ok                      bool
	}{
		{"mapi.php placed, page", "POST", "/mapi.php", `{"code":1,"msg":"succ","trade_no":"0a1b","payurl":"https://pay.example/payment/0a1b"}`, true},
		{"mapi.php placed, QR code", "POST", "/mapi.php", `{"code":1,"trade_no":"0a1b","qrcode":"weixin://x"}`, true},
		{"mapi.php refused", "POST", "/mapi.php", `{"code":-3,"msg":"sign does not verify"}`, true},
		{"mapi.php placed without trade_no", "POST", "/mapi.php", `{"code":1,"payurl":"https://pay.example/p"}`, false},
		{"mapi.php placed with two ways to pay", "POST", "/mapi.php", `{"code":1,"trade_no":"0a1b","payurl":"https://pay.example/p","qrcode":"x"}`, false},
		{"mapi.php refusal with a positive code", "POST", "/mapi.php", `{"code":2,"msg":"no"}`, false},
		{"mapi.php with a field the protocol lacks", "POST", "/mapi.php", `{"code":1,"trade_no":"0a1b","payurl":"https://pay.example/p","currency":"CNY"}`, false},
		{"act=query", "GET", "/api.php?act=query&pid=1001&key=k", `{"code":1,"pid":1001,"key":"k","active":"1","money":"0.00","type":"1","account":"a","username":"u","orders":"3","orders_today":"1","orders_lastday":"0"}`, true},
		{"act=order", "GET", "/api.php?act=order&pid=1001&key=k&trade_no=0a1b", `{"code":1,"msg":"succ",` + order + `,"api_trade_no":null,"bill_trade_no":null,"payurl":null}`, true},
		{"act=order unknown", "GET", "/api.php?act=order&pid=1001&key=k&trade_no=0a1b", `{"code":-1,"msg":"no such order"}`, true},
		{"act=orders", "GET", "/api.php?act=orders&pid=1001&key=k", `{"code":1,"msg":"succ","count":1,"data":[{` + order + `}]}`, true},
		{"act=orders, an empty page", "GET", "/api.php?act=orders&pid=1001&key=k", `{"code":1,"msg":"succ","count":0,"data":null}`, true},
		{"act=orders, an item without its order id", "GET", "/api.php?act=orders&pid=1001&key=k", `{"code":1,"msg":"succ","count":1,"data":[{"out_trade_no":"A1"}]}`, false},
		{"no act", "GET", "/api.php?pid=1001&key=k", `{"code":-5,"msg":"No Act!"}`, true},
		{"act=refund", "POST", "/api.php?act=refund", `{"code":1,"msg":"refunded 12.30","trade_no":"0a1b","money":"12.30"}`, true},
		{"act=refund refused", "POST", "/api.php?act=refund", `{"code":-1,"msg":"more than is left to refund"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, "http://127.0.0.1:8080"+tt.url, nil)
			res := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(tt.body)), Request: req}
			ok, errs := v.ValidateHttpResponse(req, res)
			if ok != tt.ok {
				var why bytes.Buffer
				for _, e := range errs {
					why.WriteString(e.Message + ": " + e.Reason + "; ")
				}
				t.Fatalf("valid %v, want %v: %s", ok, tt.ok, why.String())
			}
		})
	}
}

// epayValidator is a libopenapi validator of epay.json, itself checked.
func epayValidator(t *testing.T) validator.Validator {
	t.Helper()
	doc, err := libopenapi.NewDocument(EpayDocument())
	if err != nil {
		t.Fatalf("parse epay.json: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("build the validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, ve := range verrs {
			t.Errorf("epay.json: %s: %s", ve.Message, ve.Reason)
		}
		t.FailNow()
	}
	return v
}
