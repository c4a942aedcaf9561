package frame

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestEveryRefusalSaysWhatToDoNext: each kind of refusal a console meets
// is answered with its own next step (a sentence, not a message id) and a
// link to the page to go to (the order of an order's action, the list of
// what is not found, the Team page for a role's refusal, the login for an
// ended session), never only "back to the start page".
func TestEveryRefusalSaysWhatToDoNext(t *testing.T) {
	e := newFrameEnv(t, nil)
	errs := map[string]error{
		"invalid":     platform.Errorf(platform.KindInvalidParameter, "amount must be positive"),
		"conflict":    platform.Errorf(platform.KindConflict, "the order is not open"),
		"exceeded":    platform.Errorf(platform.KindRefundExceeded, "the refund exceeds what is left"),
		"unsupported": platform.Errorf(platform.KindRefundUnsupported, "no refunds for this method"),
		"refused":     platform.Errorf(platform.KindProviderRefused, "the provider said no"),
		"notfound":    platform.Errorf(platform.KindNotFound, "no such order"),
		"forbidden":   platform.Errorf(platform.KindForbidden, "your role does not allow this action"),
		"csrf":        errCSRF,
		"unavailable": platform.Errorf(platform.KindUnavailable, "audit search is not available"),
		"limited":     &platform.RateLimited{RetryAfter: 3 * time.Second},
		"internal":    errors.New("redis: connection refused"),
		"session":     fiber.ErrUnauthorized,
		"large":       platform.Errorf(platform.KindTooLarge, "too large"),
	}
	e.app.Get("/demo/orders/:id/:kind", func(c *fiber.Ctx) error { return e.ui.Fail(c, errs[c.Params("kind")]) })
	secret := e.user(t, "owner@shop.test", access.RoleOwner)
	s := frametest.Session(t, e.acc, access.RealmMerchant, "owner@shop.test", frametest.Code(t, secret, e.clock.now()))
	sc := &http.Cookie{Name: "gw_demo", Value: s.ID}
	for _, tc := range []struct {
		kind   string
		status int
		next   string // in the next step's sentence
		href   string
	}{
		{"invalid", 400, "correct what the message names", "/demo/orders/P1"},
		{"conflict", 409, "Open it again to see how it stands now", "/demo/orders/P1"},
		{"exceeded", 409, "refund at most what is left", "/demo/orders/P1"},
		{"unsupported", 0, "Refund the payer another way", "/demo/orders/P1"},
		{"refused", 0, "try again later or contact the provider", "/demo/orders/P1"},
		{"notfound", 404, "Find it again from the list", "/demo/orders"},
		{"forbidden", 403, "ask an owner of your team", "/demo/team"},
		{"csrf", 403, "Open the page again and send the form", "/demo/orders/P1"},
		{"unavailable", 503, "Try again in a minute", "/demo/orders/P1"},
		{"limited", 429, "Wait a moment", "/demo/orders/P1"},
		{"internal", 500, "tell support the time", "/demo/orders/P1"},
		{"session", 401, "log in again", "/demo/login"},
		{"large", 413, "Send less at once", "/demo/orders/P1"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			res := e.do(t, get("/demo/orders/P1/"+tc.kind, sc))
			b, _ := io.ReadAll(res.Body)
			body := string(b)
			if tc.status != 0 && res.StatusCode != tc.status {
				t.Fatalf("answered %d, want %d", res.StatusCode, tc.status)
			}
			next := between(body, "<p data-next>", "</p>")
			if !strings.Contains(next, tc.next) || strings.Contains(next, "next_") {
				t.Errorf("next step %q, want it to say %q", next, tc.next)
			}
			if !strings.Contains(body, `<a href="`+tc.href+`" data-next-link>`) {
				t.Errorf("no link to %s:\n%s", tc.href, between(body, "<main", "</main>"))
			}
			if strings.Contains(body, "redis") {
				t.Error("an internal error's text reached the page")
			}
		})
	}
}
