package command

import (
	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/paygate/gateway/platform"
)

// QRImage serves GET /payment/{paymentId}/qr.png: the payment code of a QR
// method's order as a PNG the payer scans. The order id is the capability,
// as it is for the payment page itself.
type QRImage struct {
	store *Store
}

// NewQRImage wires the QR endpoint.
func NewQRImage(store *Store) *QRImage { return &QRImage{store: store} }

// qrSize is the image's side in pixels: readable from a phone at arm's length.
const qrSize = 320

// Serve renders the image.
func (q *QRImage) Serve(c *fiber.Ctx) error {
	id := c.Params("paymentId")
	o, err := q.store.Get(c.UserContext(), id)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && (o.QRPayload == "" || !o.Status.Live())) {
		return platform.Errorf(platform.KindNotFound, "no payment code for order %s", id)
	}
	if err != nil {
		return err
	}
	png, err := qrcode.Encode(o.QRPayload, qrcode.Medium, qrSize)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, max-age=60")
	c.Type("png")
	return c.Send(png)
}
