package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/paygate/gateway/epay"
)

// TestEpayOpenAPI validates the door's real answers (mapi.php's order with
// a QR code and with a page, its refusals, submit.php's redirect) against
// the document the same binary serves at /openapi-epay.json, so document
// and door cannot drift. A binary that serves no such document skips (the
// document is the OpenAPI part's).
func TestEpayOpenAPI(t *testing.T) {
	e := newE2E(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve(epayTypesEnv)
	v := epayValidator(t, s)

	form := func(p epay.Params, key string) *http.Request {
		if key != "" {
			p["sign"], p["sign_type"] = epay.Sign(p, key), "MD5"
		}
		q := url.Values{}
		for k, val := range p {
			q.Set(k, val)
		}
		req, _ := http.NewRequest(http.MethodPost, s.base+"/mapi.php", strings.NewReader(q.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return req
	}
	order := func(no, device string) epay.Params {
		return epay.Params{"pid": shop.AppID, "type": "t1", "out_trade_no": no, "notify_url": "http://127.0.0.1:9/n",
			"name": "Box", "money": "3.00", "clientip": "203.0.113.5", "device": device}
	}
	tests := []struct {
		name   string
		req    *http.Request
		status int
		want   string
	}{
		{"an order shown as a QR code", form(order("O-1", "pc"), shop.APIKey), 200, `"qrcode"`},
		{"an order paid on a page", form(order("O-2", "mobile"), shop.APIKey), 200, `"payurl"`},
		{"a wrong sign", form(order("O-3", "pc"), "not the key"), 200, `"code":-3`},
		{"an unmapped type", form(epay.Params{"pid": shop.AppID, "type": "t9", "out_trade_no": "O-4", "notify_url": "http://127.0.0.1:9/n",
			"name": "Box", "money": "3.00", "clientip": "203.0.113.5"}, shop.APIKey), 200, `"code":-1`},
		{"nothing sent", form(epay.Params{"money": "1"}, ""), 200, `"code":-4`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if raw := validateEpay(t, v, tt.req, tt.status); !strings.Contains(raw, tt.want) {
				t.Fatalf("answer %s, want %s in it", raw, tt.want)
			}
		})
	}
	t.Run("submit.php's redirect", func(t *testing.T) {
		p := order("O-5", "")
		delete(p, "clientip")
		delete(p, "device")
		p["return_url"] = "https://shop.example/back"
		req, _ := http.NewRequest(http.MethodGet, epaySubmitURL(s.base, p, shop.APIKey), nil)
		validateEpay(t, v, req, http.StatusFound)
	})
}

// epayValidator builds a validator from /openapi-epay.json, or skips.
func epayValidator(t *testing.T, s *server) validator.Validator {
	t.Helper()
	res, err := http.Get(s.base + "/openapi-epay.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		t.Skip("this binary serves no /openapi-epay.json")
	}
	raw, _ := io.ReadAll(res.Body)
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatalf("parse the document: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("build the validator: %v", errs)
	}
	return v
}

// validateEpay sends req without following a redirect, checks the status
// and validates the answer against the document; it answers the body.
func validateEpay(t *testing.T, v validator.Validator, req *http.Request, status int) string {
	t.Helper()
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", req.Method, req.URL.Path, res.StatusCode, status, raw)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	res.Body = io.NopCloser(bytes.NewReader(raw))
	if ok, errs := v.ValidateHttpResponse(req, res); !ok {
		for _, ve := range errs {
			t.Errorf("%s %s %d does not match the document: %s: %s %v", req.Method, req.URL.Path, res.StatusCode, ve.Message, ve.Reason, ve.SchemaValidationErrors)
		}
		t.Fatalf("body: %s", raw)
	}
	return string(raw)
}
