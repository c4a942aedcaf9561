package chaos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"

	"github.com/paygate/gateway/schema"
)

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// payer is one worker's browser without a browser.
type payer struct {
	c *http.Client
}

// payer is worker w's browser: one cookie jar each (the CSRF cookie and
// the login session), made on first use.
func (l *Load) payer(w int) *payer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.payers == nil {
		l.payers = map[int]*payer{}
	}
	if p := l.payers[w]; p != nil {
		return p
	}
	jar, _ := cookiejar.New(nil)
	p := &payer{c: &http.Client{Jar: jar, Timeout: l.client.Timeout, CheckRedirect: l.client.CheckRedirect}}
	l.payers[w] = p
	return p
}

// transfer is the payer flow of the pages: XShop creates an order without
// a method, the payer chooses balance, logs in as Payer when the session
// is gone and confirms. Two workers race on Payer's one balance.
func (l *Load) transfer(ctx context.Context, w int) error {
	id, _, err := l.createOrder(ctx, w, l.c.M.XShop, schema.Params{"paymentMethod": "select", "currency": "USD", "amount": amount()})
	if err != nil {
		return err
	}
	p, base := l.payer(w), l.base(w)
	code, body, _, err := p.send(ctx, http.MethodGet, base+"/payment/"+id, nil)
	if err != nil {
		return fmt.Errorf("payment page: %w", err)
	}
	m := csrfRe.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		return &statusError{step: "payment page", status: code, body: snippet(body)}
	}
	tok := m[1]
	code, body, _, err = p.send(ctx, http.MethodPost, base+"/payment/"+id+"?step=confirm",
		url.Values{"paymentMethod": {"balance"}, "csrf": {tok}})
	if err != nil {
		return fmt.Errorf("choose balance: %w", err)
	}
	if code != http.StatusSeeOther {
		return &statusError{step: "choose balance", status: code, body: snippet(body)}
	}
	for range 2 {
		code, body, loc, err := p.send(ctx, http.MethodPost, base+"/merchant/pay", url.Values{"order": {id}, "csrf": {tok}})
		if err != nil {
			return fmt.Errorf("pay: %w", err)
		}
		if code == http.StatusSeeOther && strings.Contains(loc, "/payment/") {
			return nil
		}
		if code != http.StatusSeeOther || !strings.Contains(loc, "/merchant/login") {
			return &statusError{step: "pay", status: code, body: snippet(loc + " " + body)}
		}
		form := url.Values{"appid": {l.c.M.Payer.AppID}, "password": {l.c.M.Password}, "order": {id}, "csrf": {tok}}
		code, body, _, err = p.send(ctx, http.MethodPost, base+"/merchant/login", form)
		if err != nil {
			return fmt.Errorf("login: %w", err)
		}
		if code != http.StatusSeeOther {
			return &statusError{step: "login", status: code, body: snippet(body)}
		}
	}
	return fmt.Errorf("pay: still not logged in")
}

// send makes one request as a browser's form post would.
func (p *payer) send(ctx context.Context, method, u string, form url.Values) (code int, body, loc string, err error) {
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, "", "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Dest", "document")
	}
	res, err := p.c.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil { // the answer was cut off: no answer
		return 0, "", "", fmt.Errorf("read the answer: %w", err)
	}
	return res.StatusCode, string(b), res.Header.Get("Location"), nil
}
