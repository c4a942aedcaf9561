package cryptopsp

import (
	"io"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// StatementShape is cryptopsp's daily settlement statement, as its simulator
// writes it: the provider publishes no format of its own, so it is the
// common CSV under the names its API gives each field.
var StatementShape = statement.Shape{Ref: "invoice_id", Order: "order_id", Amount: "price_amount", Currency: "price_currency", Fee: "fee",
	Net: "net", Time: "paid_at", Account: "merchant_id", TimeLayout: "2006-01-02T15:04:05Z07:00"}

// ParseStatement reads a statement of the provider account account (the
// first row's when ""), refusing it whole if any row is bad.
func ParseStatement(r io.Reader, account string) ([]recon.Line, error) {
	return statement.Parse(r, StatementShape, account, statement.DefaultLimits)
}
