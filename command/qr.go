package command

import (
	"context"
	"fmt"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/paygate/gateway/platform"
)

// QRImage is GET /payment/{paymentId}/qr.png's use case: the payment code of a QR
// method's order as a PNG the payer scans. The order id is the capability,
// as it is for the payment page itself.
type QRImage struct {
	store *Store
}

// NewQRImage wires the QR endpoint.
func NewQRImage(store *Store) *QRImage { return &QRImage{store: store} }

// qrSize is the image's side in pixels: readable from a phone at arm's length.
const qrSize = 320

// PNG renders the payment code of live order id.
func (q *QRImage) PNG(ctx context.Context, id string) ([]byte, error) {
	o, err := q.store.Get(ctx, id)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && (o.QRPayload == "" || !o.Status.Live())) {
		return nil, platform.Errorf(platform.KindNotFound, "no payment code for order %s", id)
	}
	if err != nil {
		return nil, err
	}
	png, err := qrcode.Encode(o.QRPayload, qrcode.Medium, qrSize)
	if err != nil {
		return nil, fmt.Errorf("encode payment code of %s: %w", id, err)
	}
	return png, nil
}
