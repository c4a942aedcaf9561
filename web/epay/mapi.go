package epay

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/epay"
)

// mapi serves mapi.php, the merchant's server asking for an order: the
// protocol's JSON, {"code":1,...} with where to pay, or a negative code
// and msg. Refusals are answered 200 as the protocol does; only our own
// failure is a 500 (still in the protocol's shape).
func (d *Door) mapi(c *fiber.Ctx) error {
	args := c.Context().PostArgs()
	if !args.Has("pid") {
		return c.JSON(fiber.Map{"code": epay.CodeNoParams, "msg": "no parameters were sent"})
	}
	p, err := params(args)
	if err == nil {
		o, cerr := d.Create.Create(c.UserContext(), epay.Call{Params: p, API: true})
		if cerr == nil {
			return c.JSON(epay.Answer(o, d.Base, p["device"]))
		}
		err = cerr
	}
	return d.answerError(c, err)
}

// answerError writes a refusal as the protocol's {"code","msg"}; an error
// of ours is a 500 whose message says nothing of it.
func (d *Door) answerError(c *fiber.Ctx, err error) error {
	var e *epay.Error
	if errors.As(err, &e) {
		return c.JSON(fiber.Map{"code": e.Code, "msg": e.Msg})
	}
	d.Log.Error("epay mapi.php failed", "err", err)
	c.Status(fiber.StatusInternalServerError)
	return c.JSON(fiber.Map{"code": epay.CodeRefused, "msg": "internal error; try again"})
}
