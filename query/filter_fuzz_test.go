package query

import (
	"errors"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/platform"
)

// queryArgs are a query string parsed as the door's requests are
// (fasthttp's), read as Args.
type queryArgs struct{ a *fasthttp.Args }

func (q queryArgs) Query(key string, def ...string) string {
	if v := q.a.Peek(key); len(v) > 0 || len(def) == 0 {
		return string(v)
	}
	return def[0]
}

// filterOf runs parseFilter on a request whose query string is query.
func filterOf(query string) (Filter, error) {
	var a fasthttp.Args
	a.Parse(query)
	return parseFilter(queryArgs{&a}, "1001")
}

// encodeFilter is f as the query string a merchant would send for it.
func encodeFilter(f Filter) string {
	q := url.Values{"page": {strconv.Itoa(f.Page)}, "limit": {strconv.Itoa(f.Limit)}}
	if f.ClientOrderID != "" {
		q.Set("clientOrderId", f.ClientOrderID)
	}
	if f.Status != nil {
		q.Set("status", f.Status.String())
	}
	if !f.From.IsZero() {
		q.Set("from", f.From.Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.Format(time.RFC3339Nano))
	}
	return q.Encode()
}

// FuzzListingFilter checks action=orders' parameters on any query string:
// a refusal is an invalid-parameter error (a 400 saying which), an
// accepted filter stays within SPEC.md's bounds (page 1 to 1,000,000,
// limit 1 to 50, from not after to), and the filter encoded again parses
// to the same filter.
func FuzzListingFilter(f *testing.F) {
	for _, seed := range []string{
		"", "page=2&limit=50", "page=0", "limit=51", "page=01", "page=%2B1", "limit=-1", "page=99999999999999999999",
		"status=paid", "status=2", "status=PAID", "status=9", "clientOrderId=A-77%00&clientOrderId=B",
		"from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00.123456789%2B08:00", "from=2026-11-22T00:00:00Z&to=2026-11-21T00:00:00Z",
		"from=0000-01-01T00:00:00Z", "to=2026-13-01T00:00:00Z",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		got, err := filterOf(query)
		if err != nil {
			var pe *platform.Error
			if !errors.As(err, &pe) || pe.Kind != platform.KindInvalidParameter {
				t.Fatalf("%q: %v, want an invalid-parameter error", query, err)
			}
			return
		}
		if got.AppID != "1001" || got.Page < 1 || got.Page > maxPage || got.Limit < 1 || got.Limit > maxLimit ||
			(!got.From.IsZero() && !got.To.IsZero() && got.To.Before(got.From)) {
			t.Fatalf("%q: out of bounds: %+v", query, got)
		}
		again := encodeFilter(got)
		back, err := filterOf(again)
		if err != nil {
			t.Fatalf("%q re-encoded as %q: %v", query, again, err)
		}
		if back.Page != got.Page || back.Limit != got.Limit || back.ClientOrderID != got.ClientOrderID ||
			!back.From.Equal(got.From) || !back.To.Equal(got.To) || (back.Status == nil) != (got.Status == nil) ||
			(got.Status != nil && *back.Status != *got.Status) {
			t.Fatalf("%q: %+v, re-encoded %q: %+v", query, got, again, back)
		}
	})
}
