package selfservice

import (
	"context"
	"errors"
	"io"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

// errNoSearch is the audit log asked for on a node without ClickHouse.
var errNoSearch = platform.Errorf(platform.KindUnavailable, "the audit log is not served by this node")

// AuditLog searches the merchant's audit entries, newest first. The filter's
// merchant is always the session's: an owner reads its own merchant's
// entries and nothing else, whatever the filter says.
func (d *Desk) AuditLog(ctx context.Context, w Who, f audit.Filter) (*audit.Page, error) {
	appid, err := d.may(w, access.PermAuditRead)
	if err != nil {
		return nil, err
	}
	if d.Searcher == nil {
		return nil, errNoSearch
	}
	f.AppID = appid
	p, err := d.Searcher.Search(ctx, f)
	if errors.Is(err, audit.ErrBadFilter) {
		return nil, invalid("%v", err)
	}
	return p, err
}

// ExportAudit checks that the person may export the merchant's audit
// log, records the export (before the first byte: who took a copy of the
// log is part of the log) and returns the writer of the CSV, which a page
// runs while it streams the answer. The filter's merchant is always the
// session's.
func (d *Desk) ExportAudit(ctx context.Context, w Who, f audit.Filter) (func(ctx context.Context, out io.Writer) error, error) {
	appid, err := d.may(w, access.PermAuditRead)
	if err != nil {
		return nil, err
	}
	if d.Searcher == nil {
		return nil, errNoSearch
	}
	f.AppID = appid
	if _, err := d.audit.Append(ctx, d.entry(w, "audit.export", "merchant:"+appid, nil)); err != nil {
		return nil, err
	}
	return func(ctx context.Context, out io.Writer) error { return d.Searcher.ExportCSV(ctx, f, out) }, nil
}
