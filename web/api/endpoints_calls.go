package api

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// DeliveryView is one delivery of an endpoint: the body exactly as sent
// and each attempt's answer.
type DeliveryView struct {
	ID         string        `json:"id"`
	EventID    string        `json:"eventId"`
	Type       string        `json:"type"`
	EndpointID string        `json:"endpointId"`
	Created    string        `json:"created"`
	State      string        `json:"state"`
	NextAt     string        `json:"nextAttempt,omitempty"`
	Body       string        `json:"body"`
	Attempts   []AttemptView `json:"attempts"`
}

// AttemptView is one attempt of a delivery.
type AttemptView struct {
	At         string `json:"at"`
	Status     int    `json:"status"`
	Outcome    string `json:"outcome"`
	Answer     string `json:"answer"`
	DurationMS int64  `json:"durationMs"`
}

// DeliveriesView is a page of an endpoint's deliveries, newest first.
type DeliveriesView struct {
	Deliveries []DeliveryView `json:"deliveries"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// ViewDelivery is d as the API shows it.
func ViewDelivery(d events.Delivery) DeliveryView {
	v := DeliveryView{ID: d.ID, EventID: d.EventID, Type: string(d.Type), EndpointID: d.EndpointID, Created: rfc3339(d.Created),
		State: d.State, Body: d.Body, Attempts: make([]AttemptView, 0, len(d.Attempts))}
	if d.State == events.Pending {
		v.NextAt = rfc3339(d.NextAt)
	}
	for _, at := range d.Attempts {
		v.Attempts = append(v.Attempts, AttemptView{At: rfc3339(at.At), Status: at.Status, Outcome: at.Outcome, Answer: at.Answer,
			DurationMS: at.Duration.Milliseconds()})
	}
	return v
}

// replayView answers a replay: how many deliveries are due again.
type replayView struct {
	Queued int    `json:"queued"`
	Since  string `json:"since"`
}

func endpointCreate(a *events.API, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		ep, err := a.Create(c.UserContext(), p, server.ClientAddr(ips, c).String())
		if err != nil {
			return err
		}
		return server.OK(c, withSecret(ep))
	}
}

// endpointChange is an update or a rotation of the endpoint in the path.
func endpointChange(a *events.API, ips *platform.ClientIP, change func(context.Context, string, schema.Params, string) (events.Endpoint, error),
	view func(events.Endpoint) EndpointView) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		ep, err := change(c.UserContext(), strings.Clone(c.Params("id")), p, server.ClientAddr(ips, c).String())
		if err != nil {
			return err
		}
		return server.OK(c, view(ep))
	}
}

func endpointDelete(a *events.API, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		id := strings.Clone(c.Params("id"))
		if err := a.Delete(c.UserContext(), id, p, server.ClientAddr(ips, c).String()); err != nil {
			return err
		}
		return server.OK(c, map[string]any{"id": id, "deleted": true})
	}
}

func endpointReplay(a *events.API, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		n, err := a.Replay(c.UserContext(), strings.Clone(c.Params("id")), p, server.ClientAddr(ips, c).String())
		if err != nil {
			return err
		}
		since, _ := time.Parse(time.RFC3339, p["since"])
		return server.OK(c, replayView{Queued: n, Since: rfc3339(since)})
	}
}

func endpointTest(a *events.API, ips *platform.ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		d, err := a.Test(c.UserContext(), strings.Clone(c.Params("id")), p, server.ClientAddr(ips, c).String())
		if err != nil {
			return err
		}
		return server.OK(c, ViewDelivery(d))
	}
}

func endpointList(a *events.API) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := onlyQuery(c); err != nil {
			return err
		}
		acct, err := a.Admit(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		eps, err := a.List(c.UserContext(), acct)
		if err != nil {
			return err
		}
		out := EndpointsView{Endpoints: make([]EndpointView, 0, len(eps))}
		for _, ep := range eps {
			out.Endpoints = append(out.Endpoints, ViewEndpoint(ep))
		}
		return server.OK(c, out)
	}
}

func endpointRead(a *events.API) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := onlyQuery(c); err != nil {
			return err
		}
		acct, err := a.Admit(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		ep, err := a.Read(c.UserContext(), acct, strings.Clone(c.Params("id")))
		if err != nil {
			return err
		}
		return server.OK(c, ViewEndpoint(ep))
	}
}

func endpointDeliveries(a *events.API) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := onlyQuery(c, "before", "limit"); err != nil {
			return err
		}
		acct, err := a.Admit(c.UserContext(), c.Query("appid"), c.Query("key"))
		if err != nil {
			return err
		}
		ds, next, err := a.DeliveriesPage(c.UserContext(), acct, strings.Clone(c.Params("id")), c.Query("before"), c.Query("limit"))
		if err != nil {
			return err
		}
		out := DeliveriesView{Deliveries: make([]DeliveryView, 0, len(ds)), NextCursor: next}
		for _, d := range ds {
			out.Deliveries = append(out.Deliveries, ViewDelivery(d))
		}
		return server.OK(c, out)
	}
}

// onlyQuery refuses a query parameter other than appid, key and extra.
func onlyQuery(c *fiber.Ctx, extra ...string) error {
	for _, n := range queryNames(c) {
		known := n == "appid" || n == "key"
		for _, x := range extra {
			known = known || n == x
		}
		if !known {
			return platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to this call", n)
		}
	}
	return nil
}
