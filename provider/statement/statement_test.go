package statement

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/recon"
)

var shape = Shape{Ref: "ref", Order: "order_id", Amount: "amount", Currency: "currency", Fee: "fee", Net: "net",
	Time: "time", Account: "account", TimeLayout: "2006-01-02 15:04:05"}

const head = "ref,order_id,amount,currency,fee,net,time,account\n"

func row(ref, order, amt, fee, net string) string {
	return ref + "," + order + "," + amt + ",CNY," + fee + "," + net + ",2026-11-27 10:00:00,acc1\n"
}

// TestParse: the vectors every family's statement meets.
func TestParse(t *testing.T) {
	good := head + row("r1", "P1", "10.00", "0.06", "9.94") + row("r2", "P2", "20", "0", "20.00")
	tests := []struct {
		name    string
		in      string
		account string
		lines   int
		badRows []int  // rows an *Error names
		errHas  string // any other error
	}{
		{"good", good, "acc1", 2, nil, ""},
		{"account taken from the first row", good, "", 2, nil, ""},
		{"a BOM", "\xEF\xBB\xBF" + good, "acc1", 2, nil, ""},
		{"CRLF", strings.ReplaceAll(good, "\n", "\r\n"), "acc1", 2, nil, ""},
		{"a duplicate reference is left to Match", good + row("r1", "P1", "10.00", "0.06", "9.94"), "acc1", 3, nil, ""},
		{"a negative amount", head + row("r1", "P1", "-10.00", "0", "-10.00"), "acc1", 0, []int{2}, ""},
		{"a negative fee", head + row("r1", "P1", "10.00", "-0.06", "10.06"), "acc1", 0, []int{2}, ""},
		{"net not amount less fee", head + row("r1", "P1", "10.00", "0.06", "10.00"), "acc1", 0, []int{2}, ""},
		{"fee over the amount", head + row("r1", "P1", "10.00", "11.00", "0"), "acc1", 0, []int{2}, ""},
		{"malformed rows named by their row", good + "r3,P3,abc,CNY,0,0,2026-11-27 10:00:00,acc1\nr4,P4\n" + row("r5", "P5", "1.00", "0", "1.00") +
			"r6,P6,1.00,CNY,0,1.00,yesterday,acc1\n", "acc1", 0, []int{4, 5, 7}, ""},
		{"a row for another channel", good + "r3,P3,1.00,CNY,0,1.00,2026-11-27 10:00:00,acc2\n", "acc1", 0, []int{4}, ""},
		{"another channel's whole statement", good, "acc9", 0, []int{2, 3}, ""},
		{"neither reference nor order", head + row("", "", "1.00", "0", "1.00"), "acc1", 0, []int{2}, ""},
		{"a currency that is no code", head + "r1,P1,1.00,yuan,0,1.00,2026-11-27 10:00:00,acc1\n", "acc1", 0, []int{2}, ""},
		{"a missing column", "ref,order_id,amount\nr1,P1,1.00\n", "acc1", 0, nil, "no column"},
		{"an empty file", "", "acc1", 0, nil, "header"},
		{"a line too long", head + "r1,P1," + strings.Repeat("1", 5000) + "\n", "acc1", 0, nil, "line too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in), shape, tt.account, DefaultLimits)
			var se *Error
			switch {
			case tt.badRows != nil:
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want the rows %v refused", err, tt.badRows)
				}
				var rows []int
				for _, r := range se.Rows {
					rows = append(rows, r.Row)
				}
				if fmt.Sprint(rows) != fmt.Sprint(tt.badRows) || se.Count != len(tt.badRows) {
					t.Fatalf("refused rows %v (count %d), want %v: %v", rows, se.Count, tt.badRows, err)
				}
			case tt.errHas != "":
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
			case err != nil:
				t.Fatal(err)
			case len(got) != tt.lines:
				t.Fatalf("%d lines, want %d", len(got), tt.lines)
			}
		})
	}
}

// TestParseLine: a row's fields land where Match reads them.
func TestParseLine(t *testing.T) {
	got, err := Parse(strings.NewReader(head+row("r1", "P1", "10.00", "0.06", "9.94")), shape, "acc1", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := recon.Line{Row: 2, ProviderRef: "r1", OrderID: "P1", Amount: 1000, Fee: 6, Currency: "CNY", At: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
	if got[0] != want {
		t.Fatalf("line %+v, want %+v", got[0], want)
	}
}

// TestWriteParse: what the simulators write, the adapters read back.
func TestWriteParse(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rows := []Row{{Ref: "r1", Order: "P1", Currency: "USD", Account: "a", Amount: 1000, Fee: 30, At: at}, {Ref: "r,2", Order: "P\"2", Currency: "USD", Account: "a", Amount: 5, At: at}}
	var b bytes.Buffer
	if err := Write(&b, shape, func(y func(Row) bool) {
		for _, r := range rows {
			if !y(r) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(&b, shape, "a", DefaultLimits)
	if err != nil || len(got) != 2 || got[1].ProviderRef != "r,2" || got[1].OrderID != "P\"2" || got[0].Fee != 30 || !got[0].At.Equal(at) {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

// rowsReader writes n statement rows on the fly, so the test holds no file.
type rowsReader struct {
	n, i int
	buf  []byte
}

func (r *rowsReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.i > r.n {
			return 0, io.EOF
		}
		if r.i == 0 {
			r.buf = []byte(head)
		} else {
			r.buf = fmt.Appendf(nil, "r%d,P%d,10.00,CNY,0.06,9.94,2026-11-27 10:00:00,acc1\r\n", r.i, r.i)
		}
		r.i++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestScanMillion: a day of a million rows streams through in bounded
// memory; the row bound refuses one more than allowed.
func TestScanMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million rows")
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	if err := Scan(&rowsReader{n: 1_000_000}, shape, "acc1", DefaultLimits, func(recon.Line) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n != 1_000_000 {
		t.Fatalf("%d rows", n)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 16<<20 {
		t.Fatalf("heap grew %d bytes after streaming", grew)
	}
	err := Scan(&rowsReader{n: 11}, shape, "acc1", Limits{MaxRows: 10, MaxLine: 4096}, func(recon.Line) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "more than 10 rows") {
		t.Fatalf("11 rows under a bound of 10: %v", err)
	}
}

// TestNegative: a negative amount is refused as such, not as a typo, so the
// operator knows a reversal was sent as a settlement.
func TestNegative(t *testing.T) {
	for _, r := range []string{row("r1", "P1", "-10.00", "0", "-10.00"), row("r1", "P1", "10.00", "-0.06", "10.06")} {
		_, err := Parse(strings.NewReader(head+r), shape, "acc1", DefaultLimits)
		if err == nil || !strings.Contains(err.Error(), "row 2: ") || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%q: %v", r, err)
		}
	}
}
