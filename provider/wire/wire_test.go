package wire

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
)

func TestForm(t *testing.T) {
	lim := Limits{Body: 64, Fields: 2, Len: 8}
	cases := []struct {
		name string
		r    provider.Request
		ok   bool
	}{
		{"body", provider.Request{Body: []byte("a=1&b=2")}, true},
		{"parsed form wins", provider.Request{Body: []byte("junk=%zz"), Form: url.Values{"a": {"1"}}}, true},
		{"parsed form is not bounded by the body", provider.Request{Body: make([]byte, 100), Form: url.Values{"a": {"1"}}}, true},
		{"body over the bound", provider.Request{Body: []byte("a=" + strings.Repeat("1", 70))}, false},
		{"bad escape", provider.Request{Body: []byte("a=%zz")}, false},
		{"repeated", provider.Request{Body: []byte("a=1&a=2")}, false},
		{"too many", provider.Request{Body: []byte("a=1&b=2&c=3")}, false},
		{"value too long", provider.Request{Body: []byte("a=123456789")}, false},
		{"name too long", provider.Request{Body: []byte("abcdefghi=1")}, false},
	}
	for _, c := range cases {
		f, err := Form(&c.r, lim)
		if c.ok != (err == nil) {
			t.Errorf("%s: Form = %v, %v", c.name, f, err)
		}
		if err != nil && (errors.Is(err, provider.ErrMalformed) || errors.Is(err, provider.ErrSignature)) {
			t.Errorf("%s: the caller chooses the sentinel, got %v", c.name, err)
		}
	}
	if f, err := Form(&provider.Request{Body: []byte("a=1&b=2&c=3&d=" + strings.Repeat("x", 100))}, Limits{}); err != nil || len(f) != 4 {
		t.Errorf("no limits: %v, %v", f, err)
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"P2026a", "a-b_c.d:e", strings.Repeat("x", 64)} {
		if err := CheckID("id", id); err != nil {
			t.Errorf("CheckID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", strings.Repeat("x", 65), "a b", "a/b", "a&b", "é"} {
		if err := CheckID("id", id); err == nil {
			t.Errorf("CheckID(%q) accepted", id)
		}
	}
}

func TestIsRef(t *testing.T) {
	for id, want := range map[string]bool{"ABC123": true, "a-b_c": true, strings.Repeat("x", 64): true,
		"": false, strings.Repeat("x", 65): false, "a.b": false, "a:b": false, "a/b": false, "é": false} {
		if IsRef(id) != want {
			t.Errorf("IsRef(%q) = %v", id, !want)
		}
	}
}

func TestText(t *testing.T) {
	var v struct{ A, B, C, D Text }
	if err := json.Unmarshal([]byte(`{"A":"0","B":0,"C":null,"D":12150.0000}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != "0" || v.B != "0" || v.C != "" || v.D != "12150.0000" {
		t.Fatalf("decoded %+v", v)
	}
	if err := json.Unmarshal([]byte(`{"A":true}`), &v); err == nil {
		t.Fatal("a bool decoded as text")
	}
}

func TestDecodeJSON(t *testing.T) {
	var v struct{ A string }
	if err := DecodeJSON([]byte(`{"A":"x"}`), &v); err != nil || v.A != "x" {
		t.Fatalf("DecodeJSON = %v, %+v", err, v)
	}
	err := DecodeJSON([]byte("<html>"), &v)
	if !errors.Is(err, ErrAnswer) || !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("DecodeJSON(html) = %v", err)
	}
}

func TestScrub(t *testing.T) {
	base := errors.Join(provider.ErrUnavailable, errors.New(`Get "http://x/?key=s%26cret&p=s&cret": refused`))
	err := Scrub(base, "s&cret", "")
	if strings.Contains(err.Error(), "cret") || !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("Scrub = %v", err)
	}
	if Scrub(base, "") != base || Scrub(nil, "s") != nil {
		t.Fatal("Scrub changed what has no secret")
	}
}

func TestClipOrDefaultCheckURL(t *testing.T) {
	if Clip("ééé", 2) != "éé" || Clip("ab", 5) != "ab" {
		t.Error("Clip")
	}
	if OrDefault("  ", "d") != "d" || OrDefault("x", "d") != "x" {
		t.Error("OrDefault")
	}
	for s, ok := range map[string]bool{"https://x.example/p": true, "http://x": true, "": false, "ftp://x": false, "/p": false, "http://": false} {
		if (CheckURL(s) == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", s, CheckURL(s))
		}
	}
}
