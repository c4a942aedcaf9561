// Package csvsafe is the one place every CSV we produce (orders exports,
// the audit log, reports and statements to come) defuses the text merchants,
// payers and users typed: a spreadsheet opening the file runs a cell that
// starts with = + - @, a tab or a carriage return as a formula (a
// description `=HYPERLINK(...)` becomes a link that leaks or fetches). Such a
// cell is kept, behind a single quote mark (OWASP's rule), so the reader
// still sees what was typed and the spreadsheet shows it as text.
package csvsafe

import (
	"encoding/csv"
	"io"
)

// Risky tells whether a spreadsheet would read v as a formula.
func Risky(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// Cell is v as a CSV we produce writes it: unchanged, or behind a quote
// mark when a spreadsheet would run it.
func Cell(v string) string {
	if Risky(v) {
		return "'" + v
	}
	return v
}

// Writer is encoding/csv's Writer that defuses every cell it writes: for a
// CSV whose every column may hold typed text (the audit log's).
type Writer struct {
	*csv.Writer
	rec []string
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{Writer: csv.NewWriter(w)}
}

// Write writes rec with every cell defused; rec itself is left unchanged.
func (w *Writer) Write(rec []string) error {
	w.rec = w.rec[:0]
	for _, v := range rec {
		w.rec = append(w.rec, Cell(v))
	}
	return w.Writer.Write(w.rec)
}
