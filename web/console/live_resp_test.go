package console

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// bulk is a RESP bulk string.
func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// entries is one stream's entries as XRANGE and XREVRANGE give them, fields as a flat
// array (fieldsHead "*" for RESP2 and RESP3, "%" a map of pairs).
func entries(fieldsHead string, ids ...string) string {
	out := "*" + strconv.Itoa(len(ids)) + "\r\n"
	for _, id := range ids {
		f := []string{"type", "created", "id", "O-" + id, "appid", "shop", "desc", "long text the feed never reads", "amt", "12050", "v", "1"}
		n := len(f)
		if fieldsHead == "%" {
			n /= 2
		}
		out += "*2\r\n" + bulk(id) + fieldsHead + strconv.Itoa(n) + "\r\n"
		for _, s := range f {
			out += bulk(s)
		}
	}
	return out
}

func TestWalkXRevRangeReadsOnlyWhatTheFeedUses(t *testing.T) {
	const st = "gw:{s03}:events"
	for _, tc := range []struct {
		name     string
		raw      string
		wantIDs  []string
		wantLast string
		bad      bool
	}{
		{"RESP2, newest first", entries("*", "1-1", "1-0"), []string{"O-1-1", "O-1-0"}, "1-1", false},
		{"RESP3", entries("*", "2-0"), []string{"O-2-0"}, "2-0", false},
		{"RESP3 fields as a map", entries("%", "3-1", "3-0"), []string{"O-3-1", "O-3-0"}, "3-1", false},
		{"nothing new", "*0\r\n", nil, "", false},
		{"a null", "_\r\n", nil, "", false},
		{"a cut reply", entries("*", "4-0")[:40], nil, "", true},
		{"a bulk longer than the reply", "*1\r\n*2\r\n$999\r\nx\r\n", nil, "", true},
		{"a number where a string belongs", "*1\r\n*2\r\n:7\r\n*0\r\n", nil, "", true},
		{"a map where the entries belong", "%1\r\n" + bulk(st) + entries("*", "5-0"), nil, "", true},
		{"an error", "-ERR Invalid stream ID\r\n", nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []string
			last, n, err := walkXRevRange([]byte(tc.raw), func(e *rawEntry) {
				if string(e.appid) != "shop" || string(e.amount) != "12050" || string(e.typ) != "created" || string(e.version) != "1" {
					t.Errorf("entry %q: appid %q amount %q type %q version %q", e.id, e.appid, e.amount, e.typ, e.version)
				}
				ids = append(ids, string(e.id))
			})
			if tc.bad {
				if !errors.Is(err, errRESP) || n != 0 || last != nil {
					t.Errorf("a malformed reply gave %q %d %v", last, n, err)
				}
				return
			}
			if err != nil || string(last) != tc.wantLast || n != len(tc.wantIDs) || strings.Join(ids, ",") != strings.Join(tc.wantIDs, ",") {
				t.Errorf("got %v last %q n %d err %v; want %v last %q", ids, last, n, err, tc.wantIDs, tc.wantLast)
			}
		})
	}
}

// BenchmarkWalkXRead is the feed's own decoding of a poll's reply, per
// entry of a realistic order event.
func BenchmarkWalkXRevRange(b *testing.B) {
	raw := "*1000\r\n"
	for i := range 1000 {
		o := liveOrder("shop", 3)
		f := schema.EventFields(schema.EventCreated, time.Now(), o)
		raw += "*2\r\n" + bulk("1-"+strconv.Itoa(i)) + "*" + strconv.Itoa(len(f)) + "\r\n"
		for _, v := range f {
			raw += bulk(fmt.Sprint(v))
		}
	}
	buf := []byte(raw)
	b.ResetTimer()
	for range b.N / 1000 {
		if _, _, err := walkXRevRange(buf, func(*rawEntry) {}); err != nil {
			b.Fatal(err)
		}
	}
}
