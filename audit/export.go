package audit

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/paygate/gateway/internal/csvsafe"
)

// CSVHeader is the export's first line.
var CSVHeader = []string{"time", "id", "actor_id", "actor_email", "realm", "role", "action", "target", "appid", "source", "details"}

// ExportCSV writes every entry f selects (its page and limit are ignored),
// newest first, as CSV to w, streaming: a year of entries costs no memory.
// Every column may hold typed text (a reason, an e-mail, a target), so
// every cell goes through csvsafe.
func (s *Searcher) ExportCSV(ctx context.Context, f Filter, w io.Writer) error {
	f.Page, f.Limit = 1, 1
	if err := f.normalise(); err != nil {
		return err
	}
	where, args := f.where()
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("write audit export: %w", err)
	}
	err := s.each(ctx, selectRows+where+" ORDER BY at_ms DESC, id DESC", args, func(r Row) error {
		return cw.Write([]string{r.At.Format(time.RFC3339), r.ID, r.ActorID, r.ActorEmail, r.Realm, r.Role, r.Action, r.Target,
			r.AppID, r.Source, detailsJSON(r.Details)})
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
