package frame

import (
	"net/url"
	"strconv"
)

// Pager is a table's paging: which rows of how many this page shows, and
// the links to the pages either side, keeping the page's filters.
type Pager struct {
	Page, Size, Total int
	path              string
	query             url.Values
	shown             int // rows the page shows; -1: not told (a full page, or what is left)
}

// NewPager pages total rows size at a time; page counts from 1. query is
// the request's filters (copied; "page" is set per link).
func NewPager(path string, query url.Values, page, size, total int) Pager {
	q := url.Values{}
	for k, v := range query {
		q[k] = append([]string(nil), v...)
	}
	return Pager{Page: max(1, page), Size: max(1, size), Total: max(0, total), path: path, query: q, shown: -1}
}

// Showing is the pager of a page that shows n rows: "21–40 of 312" counts
// the rows on the page, not the size of a page, and the total is never
// less than what the page shows (a count read a moment before the rows
// can lag them).
func (p Pager) Showing(n int) Pager {
	p.shown = max(0, n)
	p.Total = max(p.Total, p.Offset()+p.shown)
	return p
}

// Pages is how many pages there are (at least one).
func (p Pager) Pages() int { size := max(1, p.Size); return max(1, (p.Total+size-1)/size) }

// Offset is the first row of this page, from 0.
func (p Pager) Offset() int { return max(0, p.Page-1) * p.Size }

// From and To are this page's rows, from 1, for "21–40 of 311".
func (p Pager) From() int {
	if p.Total == 0 || p.shown == 0 {
		return 0
	}
	return p.Offset() + 1
}
func (p Pager) To() int {
	if p.shown >= 0 {
		return p.Offset() + p.shown
	}
	return min(p.Total, p.Offset()+p.Size)
}

// HasPrev and HasNext say whether there are pages either side.
func (p Pager) HasPrev() bool { return p.Page > 1 }
func (p Pager) HasNext() bool { return p.Page >= 1 && p.Page < p.Pages() }

// Prev and Next are the links to them.
func (p Pager) Prev() string { return p.URL(p.Page - 1) }
func (p Pager) Next() string { return p.URL(p.Page + 1) }

// URL is page n with the same filters.
func (p Pager) URL(n int) string {
	q := url.Values{}
	for k, v := range p.query {
		q[k] = v
	}
	q.Set("page", strconv.Itoa(n))
	return p.path + "?" + q.Encode()
}

// Table is a plain table for the "table" template: a caption, headers and
// rows of cells, each cell a text and an optional link.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]Cell
	Empty   string // what to say when there are no rows
}

// Cell is one table cell.
type Cell struct {
	Text, Link string
	Num        bool // right-aligned, tabular figures
}

// PagerView is what the "pager" template takes: {{template "pager" (.PagerOf .Data.Pager)}}.
type PagerView struct {
	L *Catalog
	P Pager
}

// PagerOf pairs a pager with the page's language.
func (v *View) PagerOf(p Pager) PagerView { return PagerView{L: v.L, P: p} }
