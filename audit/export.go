package audit

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"
)

// CSVHeader is the export's first line.
var CSVHeader = []string{"time", "id", "actor_id", "actor_email", "realm", "role", "action", "target", "appid", "source", "details"}

// ExportCSV writes every entry f selects (its page and limit are ignored),
// newest first, as CSV to w, streaming: a year of entries costs no memory.
func (s *Searcher) ExportCSV(ctx context.Context, f Filter, w io.Writer) error {
	f.Page, f.Limit = 1, 1
	if err := f.normalise(); err != nil {
		return err
	}
	where, args := f.where()
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("write audit export: %w", err)
	}
	err := s.each(ctx, selectRows+where+" ORDER BY at_ms DESC, id DESC", args, func(r Row) error {
		rec := []string{r.At.Format(time.RFC3339), r.ID, r.ActorID, r.ActorEmail, r.Realm, r.Role, r.Action, r.Target,
			r.AppID, r.Source, detailsJSON(r.Details)}
		for i := range rec {
			rec[i] = cell(rec[i])
		}
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write audit export: %w", err)
	}
	return nil
}

// cell defuses a value a spreadsheet would run as a formula (a reason or an
// e-mail typed by a user, starting with = + - @, tab or CR): it is kept,
// behind a quote mark.
func cell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
