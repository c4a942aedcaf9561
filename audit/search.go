package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Filter selects entries. Empty fields select everything; AppID set limits
// the search to one merchant's entries (what its owner may read).
type Filter struct {
	AppID  string
	Actor  string // actor id or e-mail, exact
	Target string // exact
	Action string // exact, or a prefix ending in "." ("user." for every user action)
	From   time.Time
	To     time.Time // exclusive
	Page   int       // from 1; default 1
	Limit  int       // default 50, at most MaxLimit
}

// MaxLimit bounds a page.
const MaxLimit = 500

// Row is an entry as found: the stored entry and its id.
type Row struct {
	ID string
	Entry
}

// Page is one page of a search, newest first.
type Page struct {
	Page, Limit int
	Total       uint64
	Rows        []Row
}

// Searcher reads the audit log from ClickHouse.
type Searcher struct {
	conn driver.Conn
}

// NewSearcher wraps a connection to the migrated database.
func NewSearcher(conn driver.Conn) *Searcher { return &Searcher{conn: conn} }

// ErrBadFilter is a filter Search refuses.
var ErrBadFilter = errors.New("invalid audit filter")

func (f *Filter) normalise() error {
	if f.Page == 0 {
		f.Page = 1
	}
	if f.Limit == 0 {
		f.Limit = 50
	}
	if f.Page < 1 || f.Limit < 1 || f.Limit > MaxLimit {
		return fmt.Errorf("%w: page from 1, limit 1 to %d", ErrBadFilter, MaxLimit)
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return fmt.Errorf("%w: the range ends before it starts", ErrBadFilter)
	}
	return nil
}

// where is the filter's condition with its arguments, parameters bound by
// the driver (never written into the SQL).
func (f *Filter) where() (string, []any) {
	conds, args := []string{"1"}, []any{}
	add := func(cond string, v any) { conds, args = append(conds, cond), append(args, v) }
	if f.AppID != "" {
		add("appid = ?", f.AppID)
	}
	if f.Actor != "" {
		conds = append(conds, "(actor_id = ? OR actor_email = ?)")
		args = append(args, f.Actor, strings.ToLower(f.Actor))
	}
	if f.Target != "" {
		add("target = ?", f.Target)
	}
	switch {
	case strings.HasSuffix(f.Action, "."):
		add("startsWith(action, ?)", f.Action)
	case f.Action != "":
		add("action = ?", f.Action)
	}
	if !f.From.IsZero() {
		add("at_ms >= ?", uint64(f.From.UnixMilli()))
	}
	if !f.To.IsZero() {
		add("at_ms < ?", uint64(f.To.UnixMilli()))
	}
	return strings.Join(conds, " AND "), args
}

const selectRows = "SELECT id, at_ms, actor_id, actor_email, realm, role, action, target, appid, source, details FROM audit_log FINAL WHERE "

// Search returns one page of the entries f selects, newest first.
func (s *Searcher) Search(ctx context.Context, f Filter) (*Page, error) {
	if err := f.normalise(); err != nil {
		return nil, err
	}
	where, args := f.where()
	out := &Page{Page: f.Page, Limit: f.Limit, Rows: []Row{}}
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM audit_log FINAL WHERE "+where, args...).Scan(&out.Total); err != nil {
		return nil, fmt.Errorf("count audit entries: %w", err)
	}
	q := selectRows + where + fmt.Sprintf(" ORDER BY at_ms DESC, id DESC LIMIT %d, %d", (f.Page-1)*f.Limit, f.Limit)
	err := s.each(ctx, q, args, func(r Row) error { out.Rows = append(out.Rows, r); return nil })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// each runs a row query and hands each row to fn.
func (s *Searcher) each(ctx context.Context, q string, args []any, fn func(Row) error) error {
	rows, err := s.conn.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("search audit entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		var ms uint64
		var details string
		if err := rows.Scan(&r.ID, &ms, &r.ActorID, &r.ActorEmail, &r.Realm, &r.Role, &r.Action, &r.Target, &r.AppID, &r.Source, &details); err != nil {
			return fmt.Errorf("read audit entry: %w", err)
		}
		r.At = time.UnixMilli(int64(ms)).UTC()
		if details != "" && details != "{}" {
			_ = json.Unmarshal([]byte(details), &r.Details)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read audit entries: %w", err)
	}
	return nil
}

func detailsJSON(d map[string]string) string {
	if len(d) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(d)
	return string(b)
}
