package cryptohost

import (
	"io"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// StatementShape is cryptohost's daily settlement statement, as its simulator
// writes it: the provider publishes no format of its own, so it is the
// common CSV under the names its API gives each field.
var StatementShape = statement.Shape{Ref: "code", Order: "order_id", Amount: "local_amount", Currency: "local_currency", Fee: "fee",
	Net: "net", Time: "confirmed_at", Account: "account", TimeLayout: "2006-01-02T15:04:05Z07:00"}

// ParseStatement reads a statement of the provider account account (the
// first row's when ""), refusing it whole if any row is bad.
func ParseStatement(r io.Reader, account string) ([]recon.Line, error) {
	return statement.Parse(r, StatementShape, account, statement.DefaultLimits)
}
