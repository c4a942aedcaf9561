package bdcard

import (
	"io"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/recon"
)

// StatementShape is bdcard and bdpsp_a's daily settlement statement, as its simulator
// writes it: the provider publishes no format of its own, so it is the
// common CSV under the names its API gives each field.
var StatementShape = statement.Shape{Ref: "bank_tran_id", Order: "tran_id", Amount: "amount", Currency: "currency", Fee: "store_fee",
	Net: "store_amount", Time: "tran_date", Account: "store_id", TimeLayout: "2006-01-02 15:04:05"}

// ParseStatement reads a statement of the provider account account (the
// first row's when ""), refusing it whole if any row is bad.
func ParseStatement(r io.Reader, account string) ([]recon.Line, error) {
	return statement.Parse(r, StatementShape, account, statement.DefaultLimits)
}
