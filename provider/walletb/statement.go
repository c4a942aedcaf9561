package walletb

import (
	"io"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// StatementShape is wallet_b's daily settlement statement, as its simulator
// writes it: the provider publishes no format of its own, so it is the
// common CSV under the names its API gives each field.
var StatementShape = statement.Shape{Ref: "transaction_id", Order: "out_trade_no", Amount: "amount", Currency: "currency", Fee: "fee",
	Net: "settlement_amount", Time: "success_time", Account: "mchid", TimeLayout: "2006-01-02T15:04:05Z07:00"}

// ParseStatement reads a statement of the provider account account (the
// first row's when ""), refusing it whole if any row is bad.
func ParseStatement(r io.Reader, account string) ([]recon.Line, error) {
	return statement.Parse(r, StatementShape, account, statement.DefaultLimits)
}
