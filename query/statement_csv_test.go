package query

import (
	"strings"
	"testing"
	"time"
)

// TestStatementCSVIsFormulaSafe: a cell a spreadsheet would run (a
// negative amount, a currency code starting with =, +, @) is written as
// text; the rest as they are.
func TestStatementCSVIsFormulaSafe(t *testing.T) {
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	err := WriteStatementCSV(&b, []StatementDay{
		{Day: day, Currency: "USD", Opening: 10_00, Payments: 5_00, Fees: 20, Adjustments: -3_00, Closing: 11_80},
		{Day: day, Currency: "=HYPERLINK(\"http://x\")", Closing: -1},
		{Day: day, Currency: "+1", Closing: 0},
		{Day: day, Currency: "@SUM(A1)", Closing: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	tests := []struct {
		name string
		line int
		want string
	}{
		{"header", 0, "date,currency,opening,payments,fees,refunds,payouts,adjustments,closing"},
		{"negative amount as text", 1, "2026-11-02,USD,10.00,5.00,0.20,0.00,0.00,'-3.00,11.80"},
		{"formula currency", 2, `2026-11-02,"'=HYPERLINK(""http://x"")",0.00,0.00,0.00,0.00,0.00,0.00,'-0.01`},
		{"plus", 3, "2026-11-02,'+1,0.00,0.00,0.00,0.00,0.00,0.00,0.00"},
		{"at", 4, "2026-11-02,'@SUM(A1),0.00,0.00,0.00,0.00,0.00,0.00,0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.TrimRight(lines[tt.line], "\r"); got != tt.want {
				t.Fatalf("line %d\n%s\nwant\n%s", tt.line, got, tt.want)
			}
		})
	}
}
