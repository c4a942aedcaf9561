package query

import (
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paygate/gateway/internal/csvsafe"
	"github.com/paygate/gateway/schema"
)

// csvRows formats the export's rows into one reused buffer and hands it on
// in large writes. encoding/csv took a []string per row, so every amount,
// time and number became a string first, and it wrote field by field: at a
// million rows those strings and calls were most of the formatting's CPU.
// The output is byte for byte what encoding/csv's Writer with UseCRLF
// writes (TestCSVRowsMatchEncodingCSV): RFC 4180 quoting, CRLF line ends.
type csvRows struct {
	w   io.Writer
	buf []byte
	err error
}

// csvFlushAt is the buffer size that triggers a write: a few dozen rows,
// so that gzip and the socket see large writes.
const csvFlushAt = 32 << 10

func newCSVRows(w io.Writer) *csvRows {
	return &csvRows{w: w, buf: make([]byte, 0, csvFlushAt+4<<10)}
}

// header writes the header row.
func (c *csvRows) header(names []string) {
	for i, n := range names {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = appendCSVField(c.buf, n)
	}
	c.endRow()
}

// order writes o's row: the fields of exportRecord, in its order.
func (c *csvRows) order(o *schema.Order) error {
	b := appendCSVField(c.buf, o.ID)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.Status), 10)
	b = append(b, ',')
	b = appendCSVField(b, o.Status.String())
	b = append(b, ',')
	b = appendAmount(b, o.Amount)
	b = appendCSVField(append(b, ','), o.Currency)
	b = appendCSVField(append(b, ','), string(o.Method))
	for _, s := range [...]string{o.Description, o.ClientOrderID, o.NotifyURL, o.ReturnURL} {
		b = appendTextField(append(b, ','), s)
	}
	b = appendWireTime(append(b, ','), o.CreatedAt)
	b = appendWireTime(append(b, ','), o.CompletedAt)
	b = appendCSVField(append(b, ','), o.PayableAmount)
	b = strconv.AppendBool(append(b, ','), o.PaidWithBalance)
	b = strconv.AppendBool(append(b, ','), o.Sandbox)
	b = append(b, ',')
	if o.ChargeCurrency != "" {
		b = appendAmount(b, o.ChargeAmount)
		b = appendCSVField(append(b, ','), o.ChargeCurrency)
		b = appendCSVField(append(b, ','), o.FXRate)
	} else {
		b = append(b, ',', ',')
	}
	b = appendCSVField(append(b, ','), o.PayCurrency)
	b = append(b, ',')
	if o.Refunded != 0 {
		b = appendAmount(b, o.Refunded)
	}
	c.buf = b
	return c.endRow()
}

// endRow ends a row and writes the buffer out once it is large.
func (c *csvRows) endRow() error {
	c.buf = append(c.buf, '\r', '\n')
	if len(c.buf) >= csvFlushAt {
		return c.flush()
	}
	return c.err
}

// flush writes what is buffered; the first error sticks.
func (c *csvRows) flush() error {
	if c.err == nil && len(c.buf) > 0 {
		_, c.err = c.w.Write(c.buf)
	}
	c.buf = c.buf[:0]
	return c.err
}

// appendTextField appends a field the merchant or the payer typed,
// defused (csvsafe) so that a spreadsheet opening the export shows it as
// text and never runs it; the columns we format ourselves (ids, amounts,
// times, our enums) need no such care. Cell allocates only for a risky
// field, which real exports hardly have.
func appendTextField(dst []byte, field string) []byte {
	return appendCSVField(dst, csvsafe.Cell(field))
}

// appendCSVField appends field as encoding/csv's Writer (UseCRLF) writes
// it: quoted when it holds a comma, quote, CR or LF, starts with a space
// or is `\.`; inside quotes a quote is doubled, LF becomes CRLF and a CR
// is dropped.
func appendCSVField(dst []byte, field string) []byte {
	if !csvNeedsQuotes(field) {
		return append(dst, field...)
	}
	dst = append(dst, '"')
	for len(field) > 0 {
		i := strings.IndexAny(field, "\"\r\n")
		if i < 0 {
			return append(append(dst, field...), '"')
		}
		dst = append(dst, field[:i]...)
		switch field[i] {
		case '"':
			dst = append(dst, '"', '"')
		case '\n':
			dst = append(dst, '\r', '\n')
		}
		field = field[i+1:]
	}
	return append(dst, '"')
}

func csvNeedsQuotes(field string) bool {
	if field == "" {
		return false
	}
	if field == `\.` {
		return true
	}
	for i := 0; i < len(field); i++ {
		switch field[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	if field[0] < utf8.RuneSelf {
		return field[0] == ' ' || ('\t' <= field[0] && field[0] <= '\r')
	}
	r, _ := utf8.DecodeRuneInString(field)
	return unicode.IsSpace(r)
}

// appendAmount appends a's decimal string as Amount.String writes it.
func appendAmount(dst []byte, a schema.Amount) []byte {
	if a < 0 {
		dst = append(dst, '-')
		a = -a
	}
	dst = strconv.AppendInt(dst, int64(a/100), 10)
	cents := byte(a % 100)
	return append(dst, '.', '0'+cents/10, '0'+cents%10)
}

// appendWireTime appends t as schema.WireTime writes it (RFC 3339 in UTC,
// whole seconds, nothing for the zero time), by hand for the years of
// four digits: time.AppendFormat parses its layout on every call.
func appendWireTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return dst
	}
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, time.RFC3339)
	}
	hour, minute, sec := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = appendDigits(append(dst, '-'), int(month), 2)
	dst = appendDigits(append(dst, '-'), day, 2)
	dst = appendDigits(append(dst, 'T'), hour, 2)
	dst = appendDigits(append(dst, ':'), minute, 2)
	dst = appendDigits(append(dst, ':'), sec, 2)
	return append(dst, 'Z')
}

// appendDigits appends v, 0 <= v < 10^width, zero-padded to width.
func appendDigits(dst []byte, v, width int) []byte {
	n := len(dst)
	for range width {
		dst = append(dst, '0')
	}
	for i := n + width - 1; i >= n; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}
