package selfservice

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

// errNoSearch is the audit log asked for on a node without ClickHouse.
var errNoSearch = platform.Errorf(platform.KindUnavailable, "the audit log is not served by this node")

// AuditLog is the merchant's audit log as its owners read it (the Team &
// security page): search and CSV export, the export itself audited.
type AuditLog struct {
	searcher *audit.Searcher // nil: no ClickHouse on this node
	audit    *audit.Log
	now      func() time.Time
}

// Search searches the merchant's audit entries, newest first. The filter's
// merchant is always the session's: an owner reads its own merchant's
// entries and nothing else, whatever the filter says.
func (d *AuditLog) Search(ctx context.Context, actor access.Actor, f audit.Filter) (*audit.Page, error) {
	appid, err := may(actor, access.PermAuditRead)
	if err != nil {
		return nil, err
	}
	if d.searcher == nil {
		return nil, errNoSearch
	}
	f.AppID = appid
	p, err := d.searcher.Search(ctx, f)
	if errors.Is(err, audit.ErrBadFilter) {
		return nil, invalid("%v", err)
	}
	return p, err
}

// Export checks that the person may export the merchant's audit
// log, records the export (before the first byte: who took a copy of the
// log is part of the log) and returns the writer of the CSV, which a page
// runs while it streams the answer. The filter's merchant is always the
// session's.
func (d *AuditLog) Export(ctx context.Context, actor access.Actor, f audit.Filter) (func(ctx context.Context, out io.Writer) error, error) {
	appid, err := may(actor, access.PermAuditRead)
	if err != nil {
		return nil, err
	}
	if d.searcher == nil {
		return nil, errNoSearch
	}
	f.AppID = appid
	if _, err := d.audit.Append(ctx, entry(d.now(), actor, "audit.export", "merchant:"+appid, nil)); err != nil {
		return nil, err
	}
	return func(ctx context.Context, out io.Writer) error { return d.searcher.ExportCSV(ctx, f, out) }, nil
}
