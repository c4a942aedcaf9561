package query

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// csvOrders are orders whose fields exercise every quoting rule and every
// number the export formats.
func csvOrders() []schema.Order {
	at := time.Date(2026, 11, 2, 3, 4, 5, 678e6, time.UTC)
	return []schema.Order{
		{ID: "o1", Status: schema.StatusPending, Amount: 12345, Currency: "USD", Method: schema.MethodWalletA, CreatedAt: at},
		{ID: "o2", Status: schema.StatusPaid, Amount: 100, Currency: "BDT", Method: schema.MethodBDCard,
			Description: "a, \"quoted\"\nline", ClientOrderID: "c-1", NotifyURL: "https://s.example/n?a=1,2", ReturnURL: "https://s.example/r",
			CreatedAt: at, CompletedAt: at.Add(time.Minute), PayableAmount: "1.00", PaidWithBalance: true, Sandbox: true,
			ChargeAmount: 7, ChargeCurrency: "USD", FXRate: "0.07", PayCurrency: "USDT", Refunded: 50},
		{ID: "o3", Status: schema.StatusFailed, Amount: 5, ChargeAmount: 9, FXRate: "1", CreatedAt: at.In(time.FixedZone("X", 3600))},
		{ID: "o4", Status: schema.StatusCancelled, Amount: -1234, Description: " leading space", ClientOrderID: `\.`, CreatedAt: at},
		{ID: "o5", Status: schema.StatusReady, Amount: 99, Description: "cr\r\nlf and a lone \r", ClientOrderID: "\ttab", CreatedAt: at},
		{ID: "o6", Status: schema.StatusReady, Amount: 1, Description: "\u00a0nbsp first, ünïcode \"", ClientOrderID: "\u2003em", CreatedAt: at},
		{ID: "o8", Status: schema.StatusPaid, Amount: 1, Description: "=HYPERLINK(\"http://x\",\"y\")", ClientOrderID: "-2-3", NotifyURL: "+1", ReturnURL: "\r@x", CreatedAt: at},
		{ID: "o7", Status: schema.Status(9), Amount: 1 << 50, Description: "\"", ClientOrderID: "", CreatedAt: time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
}

// encodingCSV is the export as encoding/csv wrote it before csvRows.
func encodingCSV(t *testing.T, orders []schema.Order) []byte {
	t.Helper()
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.UseCRLF = true
	if err := cw.Write(exportHeader); err != nil {
		t.Fatal(err)
	}
	for i := range orders {
		if err := cw.Write(exportRecord(&orders[i], nil)); err != nil {
			t.Fatal(err)
		}
	}
	cw.Flush()
	return buf.Bytes()
}

// csvRowsOf is the export as csvRows writes it.
func csvRowsOf(t *testing.T, orders []schema.Order) []byte {
	t.Helper()
	var buf bytes.Buffer
	c := newCSVRows(&buf)
	c.header(exportHeader)
	for i := range orders {
		if err := c.order(&orders[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCSVRowsMatchEncodingCSV: the export's hand-written CSV is byte for
// byte what encoding/csv wrote from exportRecord (which equals action=order's
// fields, TestExportRecordMatchesView), and a CSV parser reads back every
// field (a CR inside a quoted field excepted, which encoding/csv drops too).
func TestCSVRowsMatchEncodingCSV(t *testing.T) {
	orders := csvOrders()
	got, want := csvRowsOf(t, orders), encodingCSV(t, orders)
	if !bytes.Equal(got, want) {
		t.Fatalf("csvRows wrote\n%q\nencoding/csv\n%q", got, want)
	}
	recs, err := csv.NewReader(bytes.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(orders)+1 || !slices.Equal(recs[0], exportHeader) {
		t.Fatalf("read back %d records, header %q", len(recs), recs[0])
	}
	for i := range orders {
		want := exportRecord(&orders[i], nil)
		for j := range want {
			want[j] = strings.ReplaceAll(strings.ReplaceAll(want[j], "\r\n", "\n"), "\r", "")
		}
		if !slices.Equal(recs[i+1], want) {
			t.Errorf("row %d read back\n%q\nwant\n%q", i+1, recs[i+1], want)
		}
	}
}

// FuzzCSVField: any field, in any text column, is written as encoding/csv
// writes it.
func FuzzCSVField(f *testing.F) {
	for _, s := range []string{"", "plain", "a,b", `"`, "\r\n", " x", `\.`, "\u00a0", "\x85", "\u0085x", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o := []schema.Order{{ID: s, Description: s, ClientOrderID: s, NotifyURL: s, PayableAmount: s, ChargeCurrency: s, FXRate: s, PayCurrency: s}}
		if got, want := csvRowsOf(t, o), encodingCSV(t, o); !bytes.Equal(got, want) {
			t.Fatalf("field %q: csvRows wrote\n%q\nencoding/csv\n%q", s, got, want)
		}
	})
}

// TestCSVRowsFlushesInLargeWrites: rows are written out in writes of at
// least csvFlushAt bytes, the last one at flush, and nothing is lost.
func TestCSVRowsFlushesInLargeWrites(t *testing.T) {
	w := &countingWriter{}
	c := newCSVRows(w)
	orders := csvOrders()
	var want []schema.Order
	for i := range 2000 {
		want = append(want, orders[i%len(orders)])
	}
	c.header(exportHeader)
	for i := range want {
		if err := c.order(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	if w.writes < 2 || w.small > 1 {
		t.Fatalf("%d writes, %d of them under %d bytes", w.writes, w.small, csvFlushAt)
	}
	if !bytes.Equal(w.Bytes(), encodingCSV(t, want)) {
		t.Fatal("the rows written in large writes differ from encoding/csv's")
	}
}

type countingWriter struct {
	bytes.Buffer
	writes, small int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if len(p) < csvFlushAt {
		w.small++
	}
	return w.Buffer.Write(p)
}

// TestCSVRowsDefuseTypedText: what the merchant or the payer typed
// (description, clientOrderId, notify and return URLs) reaches the export
// behind a quote mark when a spreadsheet would run it as a formula; our own
// columns are as we format them.
func TestCSVRowsDefuseTypedText(t *testing.T) {
	tests := []struct {
		name string
		o    schema.Order
		col  int
		want string
	}{
		{"hyperlink description", schema.Order{ID: "o1", Description: `=HYPERLINK("http://x","y")`}, 6, `'=HYPERLINK("http://x","y")`},
		{"command description", schema.Order{ID: "o2", Description: "+1+cmd"}, 6, "'+1+cmd"},
		{"minus clientOrderId", schema.Order{ID: "o3", ClientOrderID: "-2-3"}, 7, "'-2-3"},
		{"at notify URL", schema.Order{ID: "o4", NotifyURL: "@SUM(A1)"}, 8, "'@SUM(A1)"},
		{"tab return URL", schema.Order{ID: "o5", ReturnURL: "\t=1"}, 9, "'\t=1"},
		{"plain description", schema.Order{ID: "o6", Description: "tea=2"}, 6, "tea=2"},
		{"our amount", schema.Order{ID: "o7", Amount: -500}, 3, "-5.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := csv.NewReader(bytes.NewReader(csvRowsOf(t, []schema.Order{tt.o}))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := recs[1][tt.col]; got != tt.want {
				t.Fatalf("column %s is %q, want %q", exportHeader[tt.col], got, tt.want)
			}
		})
	}
}
