package frame

import (
	"errors"
	"math"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// Fail answers err as a page in the person's language with its status:
// a domain error's own (safe) message, anything else a generic one, its
// text only in the log.
func (u *UI) Fail(c *fiber.Ctx, err error) error {
	body := server.Classify(err)
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		setRetryAfter(c, rl)
	}
	if body.Code >= 500 {
		u.log.Error("console request failed", "console", u.cfg.Base, "method", c.Method(), "path", c.Path(), "err", err)
	}
	v := u.View(c, errorTitle(body.Code))
	v.Status = body.Code
	v.Problem = v.L.T(errorTitle(body.Code))
	d := nextStep(u.cfg, c, err, body.Code)
	var de *platform.Error
	if errors.As(err, &de) && body.Code < 500 {
		d.Msg = de.Msg
	}
	v.Data = d
	if err := u.Render(c, "error", v); err != nil {
		u.log.Error("console error page failed", "err", err)
		return c.SendStatus(body.Code)
	}
	return nil
}

// errorTitle is the message id of a status's headline.
func errorTitle(code int) string {
	switch code {
	case fiber.StatusBadRequest, fiber.StatusUnauthorized, fiber.StatusForbidden, fiber.StatusNotFound,
		fiber.StatusConflict, fiber.StatusRequestEntityTooLarge, fiber.StatusTooManyRequests, fiber.StatusServiceUnavailable:
		return "error_" + strconv.Itoa(code)
	}
	if code < 500 {
		return "error_400"
	}
	return "error_500"
}

func setRetryAfter(c *fiber.Ctx, rl *platform.RateLimited) {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(max(1, int(math.Ceil(rl.RetryAfter.Seconds())))))
}
