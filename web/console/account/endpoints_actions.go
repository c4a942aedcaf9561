package account

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
)

// update changes an endpoint's URL, description, types and whether it is
// enabled, as the edit form sends them all.
func (h endpointDesk) update(c *fiber.Ctx) error {
	url, desc, on := form(c, "url"), form(c, "description"), form(c, "enabled") == "1"
	types, err := events.ParseTypes(typesForm(c))
	if err == nil {
		_, err = h.p.svc.Endpoints.Update(c.UserContext(), h.ui.Actor(c), h.id(c),
			events.Change{URL: &url, Description: &desc, Types: &types, Enabled: &on})
	} else {
		err = platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	if msg, ok := fieldProblem(err); ok {
		v := h.ui.View(c, "desk_endpoint_title")
		v.Status = fiber.StatusBadRequest
		return h.endpointPage(c, v, 0, func(d *endpointData) { d.Problem = msg })
	}
	if err != nil {
		return h.ui.Fail(c, err)
	}
	return h.back(c, "endpoint_saved")
}

// rotate gives the endpoint a new secret and shows it once.
func (h endpointDesk) rotate(c *fiber.Ctx) error {
	overlap := time.Duration(0)
	if g := form(c, "overlap"); g != "" {
		hours, err := parseHours(g)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		overlap = max(hours, time.Nanosecond) // 0 hours: at once, not the default
	}
	ep, err := h.p.svc.Endpoints.Rotate(c.UserContext(), h.ui.Actor(c), h.id(c), overlap)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	return h.endpointPage(c, h.ui.View(c, "desk_endpoint_title"), 0, func(d *endpointData) { d.NewSecret = ep.Secret })
}

func (h endpointDesk) remove(c *fiber.Ctx) error {
	if err := h.p.svc.Endpoints.Remove(c.UserContext(), h.ui.Actor(c), h.id(c)); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/webhooks", "endpoint_removed")
}

// test sends the endpoint a test event; its delivery is the newest listed.
func (h endpointDesk) test(c *fiber.Ctx) error {
	if _, err := h.p.svc.Endpoints.SendTest(c.UserContext(), h.ui.Actor(c), h.id(c)); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.back(c, "endpoint_test")
}

func (h endpointDesk) resend(c *fiber.Ctx) error {
	if err := h.p.svc.Endpoints.Resend(c.UserContext(), h.ui.Actor(c), h.id(c), form(c, "delivery")); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.back(c, "endpoint_resent")
}

// replay sends every failed delivery since the time given, read in the
// viewer's zone (the form says which), and says how many.
func (h endpointDesk) replay(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_endpoint_title")
	since, err := time.ParseInLocation(dateInput, form(c, "since"), zoneOr(v.Zone))
	if err != nil {
		return h.ui.Fail(c, platform.Errorf(platform.KindInvalidParameter, "since must be a date and time"))
	}
	n, err := h.p.svc.Endpoints.ReplaySince(c.UserContext(), h.ui.Actor(c), h.id(c), since)
	if msg, ok := fieldProblem(err); ok {
		v.Status = fiber.StatusBadRequest
		return h.endpointPage(c, v, 0, func(d *endpointData) { d.Problem = msg })
	}
	if err != nil {
		return h.ui.Fail(c, err)
	}
	v.Flash = v.L.T("desk_endpoint_replayed", "Count", n, "When", frame.WhenText(since, v.Zone))
	return h.endpointPage(c, v, 0, func(*endpointData) {})
}

func (h endpointDesk) id(c *fiber.Ctx) string { return strings.Clone(c.Params("id")) }

// back goes to the endpoint's page with a notice.
func (h endpointDesk) back(c *fiber.Ctx, notice string) error {
	return h.done(c, "/webhooks/endpoints/"+h.id(c), notice)
}
