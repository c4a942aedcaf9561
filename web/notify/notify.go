// Package notify is the providers' door: their payment notifications
// (live and sandbox), each verified and settled by command.Notifications,
// answered as the provider expects. It is apart from the merchant API
// (web/api) because its callers, checks and answers are the providers'.
package notify

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// MaxNotificationBody bounds what we read of a notification: every
// provider's fits in a few kilobytes.
const MaxNotificationBody = 64 << 10

// Register mounts the notification routes, by POST and GET alike: a
// family's plain path, and each channel's (…/<family>/ch/<id>/…), which
// is verified with that channel's secrets alone. The channel routes come
// first: fiber matches in order.
func Register(r fiber.Router, n *command.Notifications, ips *platform.ClientIP) {
	for _, m := range []string{fiber.MethodPost, fiber.MethodGet} {
		r.Add(m, "/api/gatewaynotification/:family/ch/:channel/*", notification(n, ips, false))
		r.Add(m, "/sandbox/gatewaynotification/:family/ch/:channel/*", notification(n, ips, true))
		r.Add(m, "/api/gatewaynotification/:family/*", notification(n, ips, false))
		r.Add(m, "/sandbox/gatewaynotification/:family/*", notification(n, ips, true))
	}
}

// notification serves /api/gatewaynotification/:family/[ch/:channel/]*
// (sandbox false) and /sandbox/gatewaynotification/... (Notifications.Handle).
func notification(n *command.Notifications, ips *platform.ClientIP, sandbox bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		// Copies: family outlives the handler as a metric label, and fiber's
		// Params alias the request buffer fasthttp reuses (a kept
		// alias once broke /metrics until a restart).
		family := schema.Method(strings.Clone(c.Params("family")))
		ch := strings.Clone(c.Params("channel"))
		if err := n.Known(family, sandbox, ch); err != nil {
			return err
		}
		if len(c.Body()) > MaxNotificationBody {
			return platform.Errorf(platform.KindTooLarge, "notification body over %d bytes", MaxNotificationBody)
		}
		r, err := n.Handle(c.UserContext(), family, sandbox, ch, notificationRequest(c, ips))
		if err != nil {
			return err
		}
		return reply(c, r)
	}
}

// notificationRequest copies the request for the adapter: it outlives the
// handler in the notification's record.
func notificationRequest(c *fiber.Ctx, ips *platform.ClientIP) *provider.Request {
	hdr := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { hdr.Add(string(k), string(v)) })
	body := append([]byte(nil), c.Body()...)
	r := &provider.Request{Header: hdr, Body: body, Path: c.Params("*"), RemoteIP: server.ClientAddr(ips, c)}
	r.Query, _ = url.ParseQuery(string(c.Request().URI().QueryString()))
	if bytes.HasPrefix(c.Request().Header.ContentType(), []byte(fiber.MIMEApplicationForm)) {
		r.Form, _ = url.ParseQuery(string(body))
	}
	return r
}

func reply(c *fiber.Ctx, r provider.Reply) error {
	if r.Location != "" {
		return c.Redirect(r.Location, max(r.Status, fiber.StatusSeeOther))
	}
	if r.ContentType != "" {
		c.Set(fiber.HeaderContentType, r.ContentType)
	}
	if r.Status == 0 {
		r.Status = fiber.StatusOK
	}
	return c.Status(r.Status).SendString(r.Body)
}
