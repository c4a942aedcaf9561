package operator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
)

// Bounds of a references file: a day's bank batch fits many times over.
const (
	MaxRefsFile = 512 << 10 // under the console's 1 MiB request bound
	MaxRefsRows = 5000
)

// RefRow is one line of a references file and what became of it.
type RefRow struct {
	Row       int    `json:"row"` // 1-based, the header counted
	PayoutID  string `json:"payout_id,omitempty"`
	Reference string `json:"reference,omitempty"`
	Outcome   string `json:"outcome"`         // paid, already (the same reference was recorded), refused, malformed
	Error     string `json:"error,omitempty"` // why, for refused and malformed
}

// RefsReport is what a references file did.
type RefsReport struct {
	Rows             []RefRow `json:"rows"`
	Paid, Already    int
	Refused, Invalid int
}

// ImportRefs records the bank references of a CSV of payout_id,reference
// lines (an optional header, a BOM, CRLF). A malformed file (a bad row, a
// payout named twice, too big) records nothing and says which rows; a
// well-formed one records each row, and a row the Store refuses (not
// approved, a USDT payout, no such payout) is reported without stopping the
// others. The same file again records nothing more: its rows are already.
func (p *Payouts) ImportRefs(ctx context.Context, actor access.Actor, r io.Reader) (RefsReport, error) {
	if err := allow(actor, access.PermOpPayoutsDecide); err != nil {
		return RefsReport{}, err
	}
	rows, err := parseRefs(r)
	if err != nil {
		return RefsReport{Rows: rows, Invalid: countOutcome(rows, "malformed")}, err
	}
	rep := RefsReport{Rows: rows}
	for i := range rep.Rows {
		p.applyRef(ctx, actor, &rep.Rows[i])
		switch rep.Rows[i].Outcome {
		case "paid":
			rep.Paid++
		case "already":
			rep.Already++
		default:
			rep.Refused++
		}
	}
	return rep, nil
}

func (p *Payouts) applyRef(ctx context.Context, actor access.Actor, row *RefRow) {
	got, err := p.Paid(ctx, actor, row.PayoutID, row.Reference)
	if err == nil && got.State == payout.Paid {
		row.Outcome = "paid"
		return
	}
	if cur, gerr := p.s.Get(ctx, "", row.PayoutID); gerr == nil && cur.State == payout.Paid && cur.BankRef == row.Reference {
		row.Outcome = "already"
		return
	}
	row.Outcome, row.Error = "refused", safeMessage(err)
}

// safeMessage is an error as an operator may read it: a domain error's
// message, else a word.
func safeMessage(err error) string {
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe.Msg
	}
	return "not recorded: look at the payout again"
}

// parseRefs reads the file whole, bounded, and checks every row before any
// is recorded.
func parseRefs(r io.Reader) ([]RefRow, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxRefsFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the references file: %w", err)
	}
	if len(b) > MaxRefsFile {
		return nil, platform.Errorf(platform.KindInvalidParameter, "the references file is over %d bytes: split it", MaxRefsFile)
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	cr := csv.NewReader(bufio.NewReader(bytes.NewReader(b)))
	cr.FieldsPerRecord, cr.ReuseRecord = -1, true
	var rows []RefRow
	seen, bad := map[string]int{}, 0
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		row := checkRef(n, rec, err, seen)
		if row.Outcome == "header" {
			continue
		}
		if row.Outcome == "malformed" {
			bad++
		}
		if rows = append(rows, row); len(rows) > MaxRefsRows {
			return nil, platform.Errorf(platform.KindInvalidParameter, "the references file has over %d rows: split it", MaxRefsRows)
		}
	}
	switch {
	case bad > 0:
		return rows, platform.Errorf(platform.KindInvalidParameter, "%d malformed rows: nothing was recorded", bad)
	case len(rows) == 0:
		return nil, platform.Errorf(platform.KindInvalidParameter, "the references file has no payout_id,reference rows")
	}
	return rows, nil
}

// checkRef is row n: the header, a payout id and a reference, or malformed.
func checkRef(n int, rec []string, err error, seen map[string]int) RefRow {
	if err != nil {
		return RefRow{Row: n, Outcome: "malformed", Error: "not a CSV row"}
	}
	if n == 1 && len(rec) == 2 && strings.EqualFold(strings.TrimSpace(rec[0]), "payout_id") {
		return RefRow{Row: n, Outcome: "header"}
	}
	if len(rec) != 2 {
		return RefRow{Row: n, Outcome: "malformed", Error: fmt.Sprintf("%d fields: want payout_id,reference", len(rec))}
	}
	row := RefRow{Row: n, PayoutID: strings.TrimSpace(rec[0])}
	ref, err := BankRef(rec[1])
	switch {
	case row.PayoutID == "" || len(row.PayoutID) > 80:
		row.Outcome, row.Error = "malformed", "no payout id"
	case err != nil:
		row.Outcome, row.Error = "malformed", safeMessage(err)
	case seen[row.PayoutID] != 0:
		row.Outcome, row.Error = "malformed", fmt.Sprintf("payout named again (first on row %d)", seen[row.PayoutID])
	default:
		row.Reference, seen[row.PayoutID] = ref, n
	}
	return row
}

func countOutcome(rows []RefRow, o string) int {
	n := 0
	for _, r := range rows {
		if r.Outcome == o {
			n++
		}
	}
	return n
}
