package browser

import (
	"context"
	"net/http"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// SetCookie stores a cookie in the tab's browser context for url's origin
// (Domain and Path from c when set), as if that site had set it.
func (p *Page) SetCookie(url string, c *http.Cookie) {
	p.t.Helper()
	params := network.SetCookieParams{
		Name: c.Name, Value: c.Value, URL: url, Domain: c.Domain, Path: c.Path,
		Secure: new(c.Secure), HTTPOnly: new(c.HttpOnly),
	}
	if !c.Expires.IsZero() {
		params.Expires = cdp.TimeSinceEpoch(float64(c.Expires.UnixNano()) / 1e9)
	}
	p.do("set cookie "+c.Name, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetCookie, params)
		return err
	}))
}

// Cookies are the cookies the browser would send to the tab's current URL.
func (p *Page) Cookies() []*http.Cookie {
	p.t.Helper()
	res := run(p, "read cookies", chromedp.Action[network.GetCookiesResult](
		func(ctx context.Context, t *chromedp.Target) (network.GetCookiesResult, error) {
			return cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{})
		}))
	out := make([]*http.Cookie, 0, len(res.Cookies))
	for _, c := range res.Cookies {
		hc := &http.Cookie{
			Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Secure: c.Secure, HttpOnly: c.HTTPOnly,
		}
		if !c.Session {
			hc.Expires = time.Unix(int64(c.Expires), 0)
		}
		out = append(out, hc)
	}
	return out
}
