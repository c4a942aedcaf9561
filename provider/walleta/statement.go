package walleta

import (
	"io"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// StatementShape is wallet_a's daily settlement statement, as its simulator
// writes it: the provider publishes no format of its own, so it is the
// common CSV under the names its API gives each field.
var StatementShape = statement.Shape{Ref: "trade_no", Order: "out_trade_no", Amount: "total_amount", Currency: "currency", Fee: "service_fee",
	Net: "settle_amount", Time: "gmt_payment", Account: "app_id", TimeLayout: "2006-01-02 15:04:05"}

// ParseStatement reads a statement of the provider account account (the
// first row's when ""), refusing it whole if any row is bad.
func ParseStatement(r io.Reader, account string) ([]recon.Line, error) {
	return statement.Parse(r, StatementShape, account, statement.DefaultLimits)
}
