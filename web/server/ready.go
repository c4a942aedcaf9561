package server

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
)

// Drain is the first step of a graceful stop: readiness answers 503 so a
// load balancer stops sending, and every answer asks its client to close the
// connection, so keep-alive clients move before the listener closes.
type Drain struct {
	on atomic.Bool
}

// Start begins draining.
func (d *Drain) Start() { d.on.Store(true) }

// Middleware marks answers during the drain.
func (d *Drain) Middleware(c *fiber.Ctx) error {
	if d.on.Load() {
		c.Set(fiber.HeaderConnection, "close")
	}
	return c.Next()
}

// Ready serves GET /readyz: 200 when every dependency of this process's
// roles answers within a second, else 503 naming the ones that did not.
// /healthz only says the process serves; a load balancer routes on this.
func Ready(drain *Drain, checks ...platform.Check) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if drain != nil && drain.on.Load() {
			return platform.Errorf(platform.KindUnavailable, "not ready: shutting down")
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), time.Second)
		defer cancel()
		var failed []error
		for _, ch := range checks {
			if err := ch.Ping(ctx); err != nil {
				failed = append(failed, errors.New(ch.Name+": "+err.Error()))
			}
		}
		if len(failed) > 0 {
			return &platform.Error{Kind: platform.KindUnavailable, Msg: "not ready: " + errors.Join(failed...).Error()}
		}
		return c.SendString("ready")
	}
}
