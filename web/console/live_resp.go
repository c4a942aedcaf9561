package console

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// The feed reads XREVRANGE's reply as raw RESP and picks out of each entry the
// dozen fields it uses, as slices of the reply: the stream client's own
// decoding makes a string of every field of every entry and a map per
// entry (~30 fields of every order event of every merchant, ~6 µs an
// event, while anyone listens), most of which the feed never looks at.

// rawEntry is what the feed uses of a stream entry; every slice points
// into the poll's reply.
type rawEntry struct {
	id, appid, sandbox, clientID, amount, currency, method, status, created, version, typ, at []byte
	// packed is the create-time fields, which unpack reads.
	packed []byte
}

// pick keeps a field the feed uses: what the orders table shows, and the
// event's type, time and version. The rest of an entry (URLs, customer,
// provider state, a refund's record) is never decoded.
func (e *rawEntry) pick(k, v []byte) {
	switch string(k) { // no allocation: the compiler compares in place
	case schema.FID:
		e.id = v
	case schema.FPacked:
		e.packed = v
	case schema.FAppID:
		e.appid = v
	case schema.FSandbox:
		e.sandbox = v
	case schema.FClientOrder:
		e.clientID = v
	case schema.FAmount:
		e.amount = v
	case schema.FCurrency:
		e.currency = v
	case schema.FMethod:
		e.method = v
	case schema.FStatus:
		e.status = v
	case schema.FCreatedAt:
		e.created = v
	case schema.FVersion:
		e.version = v
	case schema.EvType:
		e.typ = v
	case schema.EvAt:
		e.at = v
	}
}

// unpack fills the fields the feed uses from the packed create-time ones,
// where the entry did not hold them apart; still as slices of the reply.
func (e *rawEntry) unpack() error {
	if len(e.packed) == 0 {
		return nil
	}
	return schema.UnpackBytes(e.packed, func(name string, v []byte) {
		var dst *[]byte
		switch name {
		case schema.FAppID:
			dst = &e.appid
		case schema.FSandbox:
			dst = &e.sandbox
		case schema.FClientOrder:
			dst = &e.clientID
		case schema.FAmount:
			dst = &e.amount
		case schema.FCurrency:
			dst = &e.currency
		default:
			return
		}
		if len(*dst) == 0 {
			*dst = v
		}
	})
}

var errRESP = errors.New("malformed stream reply")

// resp walks one RESP2 or RESP3 reply.
type resp struct {
	b   []byte
	err error
}

// line is the next header line's type and text.
func (r *resp) line() (byte, []byte) {
	i := bytes.IndexByte(r.b, '\n')
	if r.err != nil || i < 2 || r.b[i-1] != '\r' {
		r.fail()
		return 0, nil
	}
	typ, text := r.b[0], r.b[1:i-1]
	r.b = r.b[i+1:]
	return typ, text
}

// size is a header's count: -1 (a RESP2 null) or more; false if not one.
func size(text []byte) (int, bool) {
	if string(text) == "-1" {
		return -1, true
	}
	if len(text) == 0 || len(text) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (r *resp) fail() {
	if r.err == nil {
		r.err = errRESP
	}
	r.b = nil
}

// agg reads an aggregate's header: its elements (a map's pairs count
// twice), and whether it is a map; -1 for a null.
func (r *resp) agg() (int, bool) {
	typ, text := r.line()
	switch typ {
	case '_':
		return -1, false
	case '-', '!':
		r.err = fmt.Errorf("%w: Redis answered %q", errRESP, text)
		r.b = nil
		return -1, false
	case '*', '%', '~':
		n, ok := size(text)
		if !ok {
			r.fail()
			return -1, false
		}
		if typ == '%' && n > 0 {
			n *= 2
		}
		return n, typ == '%'
	}
	r.fail()
	return -1, false
}

// count is an aggregate's elements.
func (r *resp) count() int {
	n, _ := r.agg()
	return n
}

// str reads a bulk or simple string.
func (r *resp) str() []byte {
	typ, text := r.line()
	switch typ {
	case '+':
		return text
	case '$':
		n, ok := size(text)
		if !ok || n < 0 || len(r.b) < n+2 {
			r.fail()
			return nil
		}
		s := r.b[:n:n]
		r.b = r.b[n+2:]
		return s
	}
	r.fail()
	return nil
}

// walkXRevRange calls entry for every entry of one stream's XRANGE or
// XREVRANGE reply (an array of [id, fields] in RESP2 and RESP3), in the
// reply's order; it returns the first entry's id (XREVRANGE's newest) and
// how many entries there were.
func walkXRevRange(raw []byte, entry func(*rawEntry)) (first []byte, n int, err error) {
	r := &resp{b: raw}
	entries, isMap := r.agg()
	if isMap {
		r.fail()
	}
	var e rawEntry // one for the reply: the callback keeps what it needs
	for i := 0; i < entries && r.err == nil; i++ {
		if r.count() != 2 {
			r.fail()
			break
		}
		e = rawEntry{}
		entryID := r.str() // the stream's id; e.id is the order's
		fields := r.count()
		for f := 0; f+1 < fields && r.err == nil; f += 2 {
			k := r.str()
			e.pick(k, r.str())
		}
		if r.err == nil && e.unpack() != nil {
			r.fail()
		}
		if r.err == nil {
			if n == 0 {
				first = entryID
			}
			n++
			entry(&e)
		}
	}
	if r.err != nil {
		return nil, 0, fmt.Errorf("%w: %d entries read", r.err, n)
	}
	return first, n, nil
}
