package statement

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/schema"
)

// maxReported is how many bad rows an error names; the count says the rest.
const maxReported = 20

// maxField bounds a reference or order id: longer is not an id.
const maxField = 128

// RowError is one refused row: its line in the file (the header is 1).
type RowError struct {
	Row    int
	Reason string
}

// Error is a statement refused for its rows: the first few named, all
// counted.
type Error struct {
	Rows  []RowError
	Count int
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "statement refused: %d bad row(s)", e.Count)
	for _, r := range e.Rows {
		fmt.Fprintf(&b, "; row %d: %s", r.Row, r.Reason)
	}
	return b.String()
}

func (e *Error) add(row int, format string, args ...any) {
	e.Count++
	if len(e.Rows) < maxReported {
		e.Rows = append(e.Rows, RowError{Row: row, Reason: fmt.Sprintf(format, args...)})
	}
}

// Parse reads a whole statement into lines (Scan, collected).
func Parse(r io.Reader, s Shape, account string, lim Limits) ([]recon.Line, error) {
	var out []recon.Line
	err := Scan(r, s, account, lim, func(l recon.Line) error {
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Scan streams a statement of shape s to fn, row by row. Every row must
// belong to account (the first row's when account is ""): a row of another
// provider account is another channel's money and is refused. A BOM and
// CRLF line ends are read as a spreadsheet writes them. Any bad row
// refuses the statement (an *Error naming the rows); fn has then seen the
// good ones, so a caller that keeps anything keeps it only on nil.
func Scan(r io.Reader, s Shape, account string, lim Limits, fn func(recon.Line) error) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	br := bufio.NewReader(&boundedLines{r: r, max: lim.MaxLine})
	if b, err := br.Peek(3); err == nil && string(b) == "\xEF\xBB\xBF" {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("statement header: %w", err)
	}
	col, err := columns(s, head)
	if err != nil {
		return err
	}
	cr.FieldsPerRecord = len(head)
	bad := &Error{}
	for rows := 0; ; {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && !errors.Is(err, errLongLine) {
			bad.add(pe.StartLine, "%v", pe.Err)
			continue
		}
		if err != nil {
			return fmt.Errorf("statement: %w", err)
		}
		if rows++; rows > lim.MaxRows {
			return fmt.Errorf("statement: more than %d rows", lim.MaxRows)
		}
		row, _ := cr.FieldPos(0)
		l, reason := parseRow(s, col, rec, row)
		if reason == "" && account == "" {
			account = strings.Clone(rec[col[7]])
		}
		if reason == "" && rec[col[7]] != account {
			reason = fmt.Sprintf("account %q is not this channel's (%q)", clip(rec[col[7]]), account)
		}
		if reason != "" {
			bad.add(row, "%s", reason)
			continue
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	if bad.Count > 0 {
		return bad
	}
	return nil
}

// columns finds each of the shape's columns in the header; a missing one
// refuses the file, extra ones are ignored.
func columns(s Shape, head []string) ([8]int, error) {
	var col [8]int
	at := map[string]int{}
	for i, h := range head {
		at[strings.TrimSpace(h)] = i
	}
	for i, name := range s.Header() {
		k, ok := at[name]
		if !ok {
			return col, fmt.Errorf("statement header: no column %q", name)
		}
		col[i] = k
	}
	return col, nil
}

func parseRow(s Shape, col [8]int, rec []string, row int) (recon.Line, string) {
	l := recon.Line{Row: row, ProviderRef: rec[col[0]], OrderID: rec[col[1]], Currency: rec[col[3]]}
	for _, id := range []string{l.ProviderRef, l.OrderID} {
		if len(id) > maxField || strings.IndexFunc(id, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' }) >= 0 {
			return l, fmt.Sprintf("reference or order %q is not an id", clip(id))
		}
	}
	if l.ProviderRef == "" && l.OrderID == "" {
		return l, "neither a reference nor an order id"
	}
	if !decimal.Currency(l.Currency) {
		return l, fmt.Sprintf("currency %q is not a code", clip(l.Currency))
	}
	var err error
	var net schema.Amount
	if l.Amount, err = money(rec[col[2]], false); err != nil {
		return l, "amount: " + err.Error()
	}
	if l.Fee, err = money(rec[col[4]], true); err != nil {
		return l, "fee: " + err.Error()
	}
	if net, err = money(rec[col[5]], true); err != nil {
		return l, "net: " + err.Error()
	}
	if l.Fee > l.Amount || net != l.Amount-l.Fee {
		return l, fmt.Sprintf("net %s is not amount %s less fee %s", net, l.Amount, l.Fee)
	}
	if l.At, err = time.ParseInLocation(s.TimeLayout, rec[col[6]], time.UTC); err != nil {
		return l, fmt.Sprintf("time %q is not %s", clip(rec[col[6]]), s.TimeLayout)
	}
	l.ProviderRef, l.OrderID, l.Currency = strings.Clone(l.ProviderRef), strings.Clone(l.OrderID), strings.Clone(l.Currency)
	return l, ""
}

// errNegative is a negative amount: a statement lists money received, and a
// reversal is not a settlement.
var errNegative = errors.New("negative amounts are refused")

// money reads a two-decimal amount; zero only where it may be (a fee).
func money(lit string, zero bool) (schema.Amount, error) {
	lit = strings.TrimSpace(lit)
	if strings.HasPrefix(lit, "-") {
		return 0, errNegative
	}
	if zero && strings.Trim(strings.Replace(lit, ".", "", 1), "0") == "" && lit != "" && lit != "." {
		return 0, nil
	}
	a, err := decimal.ParsePadded(lit)
	if err != nil {
		return 0, err
	}
	return a, nil
}

// clip keeps an echoed value short in an error.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
