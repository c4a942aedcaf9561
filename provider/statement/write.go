package statement

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/paygate/gateway/schema"
)

// Write writes rows as a statement of shape s, header first, CRLF line
// ends as the providers' exports have them.
func Write(w io.Writer, s Shape, rows func(yield func(Row) bool)) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(s.Header()); err != nil {
		return fmt.Errorf("write statement: %w", err)
	}
	var err error
	rows(func(r Row) bool {
		err = cw.Write([]string{r.Ref, r.Order, schema.Amount(r.Amount).String(), r.Currency, schema.Amount(r.Fee).String(),
			schema.Amount(r.Amount - r.Fee).String(), r.At.UTC().Format(s.TimeLayout), r.Account})
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("write statement: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write statement: %w", err)
	}
	return nil
}
