package csvsafe

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"
)

// TestCell: a cell a spreadsheet would run as a formula gets a quote mark
// in front; any other is unchanged.
func TestCell(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "tea for two", "tea for two"},
		{"equals", `=HYPERLINK("http://x","y")`, `'=HYPERLINK("http://x","y")`},
		{"plus", "+1+cmd", "'+1+cmd"},
		{"minus", "-2-3", "'-2-3"},
		{"at", "@SUM(A1)", "'@SUM(A1)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"formula later in the cell", "a=1+2", "a=1+2"},
		{"leading space", " =1", " =1"},
		{"already quoted", "'=1", "'=1"},
		{"non-ASCII first", "ü=1", "ü=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cell(tt.in); got != tt.want {
				t.Fatalf("Cell(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Risky(tt.in); got != (tt.in != tt.want) {
				t.Fatalf("Risky(%q) = %v", tt.in, got)
			}
		})
	}
}

// TestWriter: every cell of every row is defused, and the caller's record
// is left as it was.
func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	rec := []string{"=1", "ok", "-2"}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"'=1", "ok", "'-2"}; len(got) != 1 || !slices.Equal(got[0], want) {
		t.Fatalf("read back %q, want %q", got, want)
	}
	if !slices.Equal(rec, []string{"=1", "ok", "-2"}) {
		t.Fatalf("the caller's record changed: %q", rec)
	}
}
