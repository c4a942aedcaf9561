package main

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/paygate/gateway/epay"
)

// TestEpayAttacks: the epay door's refusals through the binary, with the
// webhook address rules in force (no private notify_url). Each case is a
// guard: a wrong or missing sign, a disabled pid, an unmapped type, money
// with three decimals or an exponent, a notify_url to a private address, a
// value that would split into another parameter; a replayed submit.php
// link lands on the same order; markup in name is shown escaped.
func TestEpayAttacks(t *testing.T) {
	e := newE2E(t)
	var shop, gone account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&gone, "merchant", "create", "--name", "gone", "--sandbox", "--json")
	e.run("merchant", "disable", gone.AppID)
	var tight account
	e.cli(&tight, "merchant", "create", "--name", "tight", "--sandbox", "--json")
	e.run("merchant", "limits", tight.AppID, "--create", "1/h:1")
	s := e.serve(epayTypesEnv, "GATEWAY_WEBHOOK_ALLOW_PRIVATE=false")

	n := 0
	base := func(pid string) epay.Params {
		n++
		return epay.Params{"pid": pid, "type": "t1", "out_trade_no": "A-" + strconv.Itoa(n), "notify_url": "http://203.0.113.9/n",
			"name": "thing", "money": "10.00", "clientip": "203.0.113.5"}
	}
	with := func(k, v string) func(epay.Params) { return func(p epay.Params) { p[k] = v } }
	tests := []struct {
		name   string
		pid    *account
		change func(epay.Params)
		key    func() string
		code   int
		msg    string
	}{
		{"a sound order", &shop, func(epay.Params) {}, nil, 1, "succ"},
		{"missing sign", &shop, func(epay.Params) {}, func() string { return "" }, epay.CodeBadSign, "sign"},
		{"wrong sign", &shop, with("sign", strings.Repeat("0", 32)), nil, epay.CodeBadSign, "sign"},
		{"sign of another key", &shop, func(epay.Params) {}, func() string { return gone.APIKey }, epay.CodeBadSign, "sign"},
		{"disabled pid", &gone, func(epay.Params) {}, nil, epay.CodeRefused, "disabled"},
		{"unmapped type", &shop, with("type", "t9"), nil, epay.CodeRefused, "type"},
		{"money with three decimals", &shop, with("money", "1.001"), nil, epay.CodeRefused, "money"},
		{"money with an exponent", &shop, with("money", "1e2"), nil, epay.CodeRefused, "money"},
		{"notify_url to a private address", &shop, with("notify_url", "http://10.0.0.1/n"), nil, epay.CodeRefused, "notify_url"},
		{"a value splitting into notify_url", &shop, with("name", "thing&notify_url=http://10.0.0.1/n"), nil, epay.CodeRefused, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base(tt.pid.AppID)
			tt.change(p)
			key := tt.pid.APIKey
			if tt.key != nil {
				key = tt.key()
			}
			_, a, raw := s.epayPost(t, "/mapi.php", p, key)
			if a.Code != tt.code || !strings.Contains(a.Msg, tt.msg) {
				t.Fatalf("answer %s, want code %d and a msg naming %q", raw, tt.code, tt.msg)
			}
		})
	}

	t.Run("the merchant's create rate limit", func(t *testing.T) {
		_, first, raw := s.epayPost(t, "/mapi.php", base(tight.AppID), tight.APIKey)
		if first.Code != 1 {
			t.Fatalf("first create: %s", raw)
		}
		if _, a, raw := s.epayPost(t, "/mapi.php", base(tight.AppID), tight.APIKey); a.Code != epay.CodeRefused ||
			!strings.Contains(a.Msg, "too many") {
			t.Fatalf("second create within a limit of one: %s", raw)
		}
	})
	t.Run("mapi.php without pid", func(t *testing.T) {
		if _, a, raw := s.epayPost(t, "/mapi.php", epay.Params{"money": "1.00"}, ""); a.Code != epay.CodeNoParams {
			t.Fatalf("answer %s, want code -4", raw)
		}
	})
	t.Run("a parameter given twice", func(t *testing.T) {
		p := base(shop.AppID)
		p["sign"], p["sign_type"] = epay.Sign(p, shop.APIKey), "MD5"
		form := url.Values{}
		for k, v := range p {
			form.Set(k, v)
		}
		form.Add("notify_url", "http://10.0.0.1/n") // which one was signed would be a guess
		res, err := http.Post(s.base+"/mapi.php", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(raw), `"code":-1`) || !strings.Contains(string(raw), "twice") {
			t.Fatalf("answer %s, want code -1 naming the repeat", raw)
		}
	})
	t.Run("replayed submit.php link", func(t *testing.T) {
		p := base(shop.AppID)
		delete(p, "clientip")
		p["return_url"] = "https://shop.example/back"
		link := epaySubmitURL(s.base, p, shop.APIKey)
		first, again := submitLocation(t, link), submitLocation(t, link)
		if !strings.Contains(first, "/payment/P") || first != again {
			t.Fatalf("the same link made %q then %q", first, again)
		}
	})
	t.Run("markup in name shown escaped", func(t *testing.T) {
		p := base(shop.AppID)
		delete(p, "clientip")
		p["return_url"], p["name"] = "https://shop.example/back", `<script>alert(1)</script>`
		res, err := http.Get(submitLocation(t, epaySubmitURL(s.base, p, shop.APIKey)))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(body), "<script>alert(1)") || !strings.Contains(string(body), "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatalf("payment page shows the name unescaped or not at all:\n%s", body)
		}
	})
}

// submitLocation opens a submit.php link and answers where it sends the
// payer.
func submitLocation(t *testing.T, link string) string {
	t.Helper()
	res, err := noFollow.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusFound {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("submit.php answered %d: %s", res.StatusCode, body)
	}
	return res.Header.Get("Location")
}
