package query

import (
	"fmt"
	"io"
	"time"

	"github.com/paygate/gateway/internal/csvsafe"
)

// StatementCSVHeader is the first row of a statement's CSV.
var StatementCSVHeader = []string{"date", "currency", "opening", "payments", "fees", "refunds", "payouts", "adjustments", "closing"}

// WriteStatementCSV writes days as RFC 4180 CSV, one row a day and
// currency. Every cell goes through csvsafe: a value a spreadsheet would
// read as a formula (a negative amount, a currency code someone chose)
// is written as text.
func WriteStatementCSV(w io.Writer, days []StatementDay) error {
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(StatementCSVHeader); err != nil {
		return fmt.Errorf("write statement csv: %w", err)
	}
	for _, d := range days {
		if err := cw.Write([]string{d.Day.Format(time.DateOnly), d.Currency, d.Opening.String(), d.Payments.String(),
			d.Fees.String(), d.Refunds.String(), d.Payouts.String(), d.Adjustments.String(), d.Closing.String()}); err != nil {
			return fmt.Errorf("write statement csv: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}
