package api

import (
	"github.com/gofiber/fiber/v2"
	"github.com/paygate/gateway/command"
)

// qrImage serves GET /payment/{paymentId}/qr.png (QRImage.PNG).
func qrImage(q *command.QRImage) fiber.Handler {
	return func(c *fiber.Ctx) error {
		png, err := q.PNG(c.UserContext(), c.Params("paymentId"))
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderCacheControl, "private, max-age=60")
		c.Type("png")
		return c.Send(png)
	}
}
