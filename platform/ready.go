package platform

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Check is one dependency readiness asks about.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Ready serves GET /readyz: 200 when every dependency of this process's
// roles answers within a second, else 503 naming the ones that did not.
// /healthz only says the process serves; a load balancer routes on this.
func Ready(checks ...Check) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), time.Second)
		defer cancel()
		var failed []error
		for _, ch := range checks {
			if err := ch.Ping(ctx); err != nil {
				failed = append(failed, errors.New(ch.Name+": "+err.Error()))
			}
		}
		if len(failed) > 0 {
			return &Error{Kind: KindUnavailable, Msg: "not ready: " + errors.Join(failed...).Error()}
		}
		return c.SendString("ready")
	}
}
