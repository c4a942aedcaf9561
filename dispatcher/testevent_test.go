package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// testerFor is e's merchant's tester over guard g: 127.0.0.1 stands for a
// public server, every other address is judged as in production.
func (e *env) testerFor(g *guardedDialer) *Tester {
	cfg := testConfig()
	cfg.AllowPrivate = false
	return newTester(cfg, AccountKeys(e.accounts.Get, e.accounts.EnsureWebhookSecret), g)
}

func publicLookup(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{publicStandIn}, nil
}

// TestTestEventIsSignedLikeAWebhook: the test event carries SPEC.md's MD5
// sign with the merchant's API key and the modern headers with its webhook
// secret, marks itself test=1 and names no order; the answer's status and
// start come back.
func TestTestEventIsSignedLikeAWebhook(t *testing.T) {
	e := newEnv(t)
	acct, err := e.accounts.EnsureWebhookSecret(context.Background(), e.acct.AppID)
	if err != nil {
		t.Fatal(err)
	}
	var form url.Values
	var header http.Header
	port := serveOn(t, func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		form, header = r.PostForm, r.Header.Clone()
		_, _ = w.Write([]byte("success"))
	})
	res, err := e.testerFor(testGuard(publicLookup)).Send(context.Background(), acct.AppID, fmt.Sprintf("http://shop.test:%d/hook", port))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Acknowledged || res.Status != 200 || res.Body != "success" || res.Error != "" {
		t.Fatalf("result %+v", res)
	}
	p := schema.Params{}
	for k := range form {
		if k != "sign" && k != "sign_type" {
			p[k] = form.Get(k)
		}
	}
	if !schema.VerifySign(p, acct.APIKey, form.Get("sign")) || p["test"] != "1" || !strings.HasPrefix(p["paymentId"], TestPaymentPrefix) {
		t.Fatalf("form %v does not verify with the API key, or is not marked as a test", form)
	}
	ts, _ := strconv.ParseInt(header.Get(HeaderTimestamp), 10, 64)
	want, err := signModern(header.Get(HeaderID), time.Unix(ts, 0), bodyOf(form), acct.WebhookSecrets(time.Now()))
	if err != nil || header.Get(HeaderID) != res.EventID || header.Get(HeaderSignature) != want.signature {
		t.Fatalf("modern headers %v, want signature %q (%v)", header, want.signature, err)
	}
}

// bodyOf is the body a signed form was sent as: the stored form in key
// order, then sign and sign_type (signForm).
func bodyOf(form url.Values) string {
	p := url.Values{}
	for k := range form {
		if k != "sign" && k != "sign_type" {
			p.Set(k, form.Get(k))
		}
	}
	return p.Encode() + "&sign=" + form.Get("sign") + "&sign_type=" + form.Get("sign_type")
}

// TestTestEventReportsTheAnswer: a receiver that fails is shown as it
// answered.
func TestTestEventReportsTheAnswer(t *testing.T) {
	e := newEnv(t)
	port := serveOn(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("boom: stack trace"))
	})
	res, err := e.testerFor(testGuard(publicLookup)).Send(context.Background(), e.acct.AppID, fmt.Sprintf("http://shop.test:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	if res.Acknowledged || res.Status != 500 || res.Body != "boom: stack trace" || res.Error != "HTTP 500" {
		t.Fatalf("result %+v", res)
	}
}

// TestTestEventRefusesOurNetwork: the test event goes through the
// dispatcher's address guard: a URL on our own network (here 127.0.0.2,
// or 127.0.0.1 under the production policy, or a name resolving there)
// is refused and never connected to.
func TestTestEventRefusesOurNetwork(t *testing.T) {
	e := newEnv(t)
	private := listenCounting(t, netip.AddrPortFrom(privateStandIn, 0).String())
	loop := listenCounting(t, netip.AddrPortFrom(publicStandIn, 0).String())
	_, loopPort, _ := strings.Cut(loop.ln.Addr().String(), ":")
	production, err := NewTester(func() Config { c := testConfig(); c.AllowPrivate = false; return c }(),
		AccountKeys(e.accounts.Get, e.accounts.EnsureWebhookSecret))
	if err != nil {
		t.Fatal(err)
	}
	privateName := func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{privateStandIn}, nil }
	for _, tt := range []struct {
		name   string
		tester *Tester
		target string
	}{
		{"private address", e.testerFor(testGuard(nil)), "http://" + private.ln.Addr().String() + "/"},
		{"name resolving to a private address", e.testerFor(testGuard(privateName)), "http://" + strings.Replace(private.ln.Addr().String(), "127.0.0.2", "internal.test", 1) + "/"},
		{"loopback under the production policy", production, "http://127.0.0.1:" + loopPort + "/"},
		{"localhost under the production policy", production, "http://localhost:" + loopPort + "/"},
		{"IPv4-mapped loopback", production, "http://[::ffff:127.0.0.1]:" + loopPort + "/"},
		{"metadata service", production, "http://169.254.169.254/latest/meta-data/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.tester.Send(context.Background(), e.acct.AppID, tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if res.Acknowledged || res.Status != 0 || !strings.HasPrefix(res.Error, "refused") {
				t.Fatalf("result %+v, want a refusal", res)
			}
		})
	}
	if n := private.accepted.Load() + loop.accepted.Load(); n != 0 {
		t.Fatalf("refused targets got %d connections", n)
	}
}

// TestDestinationsCheck: the default callback URL is judged by the
// dispatcher's address rules before it is stored.
func TestDestinationsCheck(t *testing.T) {
	names := map[string][]netip.Addr{
		"localhost":     {netip.MustParseAddr("127.0.0.1")},
		"shop.example":  {netip.MustParseAddr("93.184.216.34")},
		"mixed.example": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")},
		"meta.example":  {netip.MustParseAddr("169.254.169.254")},
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	strict := &Destinations{g: &guardedDialer{lookup: lookup}}
	lax := &Destinations{g: &guardedDialer{lookup: lookup, allowPrivate: true}}
	for _, tt := range []struct {
		name string
		d    *Destinations
		url  string
		ok   bool
	}{
		{"public name", strict, "https://shop.example/hooks/pay", true},
		{"public address", strict, "http://93.184.216.34:8080/", true},
		{"loopback", strict, "http://127.0.0.1/", false},
		{"localhost", strict, "http://localhost:8080/", false},
		{"IPv6 loopback", strict, "http://[::1]/", false},
		{"IPv4-mapped loopback", strict, "http://[::ffff:127.0.0.1]/", false},
		{"private", strict, "http://10.1.2.3/", false},
		{"metadata", strict, "http://169.254.169.254/", false},
		{"name resolving to metadata", strict, "http://meta.example/", false},
		{"one private address among public ones", strict, "https://mixed.example/", false},
		{"unspecified", strict, "http://0.0.0.0:9000/", false},
		{"unresolvable", strict, "https://nowhere.example/", false},
		{"not http", strict, "ftp://shop.example/", false},
		{"credentials", strict, "https://user:pw@shop.example/", false},
		{"relative", strict, "/hook", false},
		{"loopback allowed by the setting", lax, "http://127.0.0.1:9000/", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Check(context.Background(), tt.url)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadDestination)) {
				t.Fatalf("Check(%s) = %v, want ok %v", tt.url, err, tt.ok)
			}
			if err != nil && strings.Contains(err.Error(), "10.0.0.5") {
				t.Fatalf("the refusal names our resolver's answer: %v", err)
			}
		})
	}
}
