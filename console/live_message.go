package console

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/paygate/gateway/schema"
)

// The stream entry fields the feed reads: what the orders table shows,
// and the event's type, time and version. The rest of an entry (URLs,
// customer, provider state, a refund's record) is never decoded.
const (
	fieldID       = schema.FID
	fieldAppID    = schema.FAppID
	fieldSandbox  = schema.FSandbox
	fieldClientID = schema.FClientOrder
	fieldAmount   = schema.FAmount
	fieldCurrency = schema.FCurrency
	fieldMethod   = schema.FMethod
	fieldStatus   = schema.FStatus
	fieldCreated  = schema.FCreatedAt
	fieldVersion  = schema.FVersion
)

// LiveOrder is what the orders page needs of a new or changed order.
type LiveOrder struct {
	ID            string `json:"id"`
	ClientOrderID string `json:"clientOrderId"`
	Amount        string `json:"amount"`
	Currency      string `json:"currency"`
	Method        string `json:"method"`
	Status        string `json:"status"`
	Created       string `json:"created"`
	Event         string `json:"event"` // the order's last event in the poll
	// New: the poll saw the order's first event, so a page showing the
	// newest orders puts it on top (a changed old order is not new).
	New     bool `json:"new"`
	Sandbox bool `json:"sandbox"`
}

// liveMessage is one poll's message to the feeds of one merchant.
type liveMessage struct {
	Orders []LiveOrder `json:"orders"`
	// Reload: the message does not carry every change since the last one
	// (more orders changed than the page shows, or this feed was too slow
	// and lost a message); the page should reload its table.
	Reload bool `json:"reload"`
}

// change is the latest event of one order in a poll. Its entry's fields
// stay as the stream client gave them until the order makes it into the
// message, so an order changed many times in a poll, or left out by the
// cap, costs no decoding.
type change struct {
	at     int64 // the event's time (ms): orders the message
	seq    int   // the order's place in the poll: ties of at
	typ    string
	isNew  bool
	values map[string]any
}

// batch is one poll's changed orders of one merchant.
type batch struct {
	byID map[string]*change
	list []*change
}

func newBatch() *batch { return &batch{byID: map[string]*change{}} }

// add notes an entry; false for an entry without an order id.
func (b *batch) add(v map[string]any) bool {
	id := str(v, fieldID)
	if id == "" {
		return false
	}
	typ := str(v, schema.EvType)
	at, _ := strconv.ParseInt(str(v, schema.EvAt), 10, 64)
	// An order's first event is created, or paid for a balance order paid
	// at once; either way its version is 1.
	first := typ == string(schema.EventCreated) || str(v, fieldVersion) == "1"
	c := b.byID[id]
	if c == nil {
		c = &change{seq: len(b.list)}
		b.byID[id] = c
		b.list = append(b.list, c)
	}
	c.at, c.typ, c.values = at, typ, v
	c.isNew = c.isNew || first
	return true
}

// message renders the batch, its latest max orders oldest first (the page
// puts each new one on top, so the newest ends on top); nil when empty.
func (b *batch) message(max int) *message {
	if len(b.list) == 0 {
		return nil
	}
	list := b.list
	slices.SortFunc(list, func(x, y *change) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	capped := len(list) > max
	if capped {
		list = list[len(list)-max:]
	}
	lm := liveMessage{Orders: make([]LiveOrder, len(list)), Reload: capped}
	for i, c := range list {
		lm.Orders[i] = c.order()
	}
	return &message{m: lm, bytes: frame(lm)}
}

// order decodes the fields the table shows, once for every feed.
func (c *change) order() LiveOrder {
	v := c.values
	num := func(k string) int64 { n, _ := strconv.ParseInt(str(v, k), 10, 64); return n }
	created := ""
	if ms := num(fieldCreated); ms > 0 {
		created = time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
	}
	return LiveOrder{ID: str(v, fieldID), ClientOrderID: str(v, fieldClientID), Amount: schema.Amount(num(fieldAmount)).String(),
		Currency: str(v, fieldCurrency), Method: str(v, fieldMethod), Status: schema.Status(num(fieldStatus)).String(),
		Created: created, Event: c.typ, New: c.isNew, Sandbox: str(v, fieldSandbox) == "1"}
}

func str(v map[string]any, k string) string {
	s, _ := v[k].(string)
	return s
}

// message is one rendered poll of one merchant: the bytes every feed of
// the merchant writes, and the same with the reload hint for a feed that
// lost the previous one (rendered only if some feed needs it).
type message struct {
	m      liveMessage
	bytes  []byte
	reload []byte
}

// withReload is the message with the reload hint. Only the hub's reader
// calls it, so rendering it once needs no lock.
func (m *message) withReload() []byte {
	if m.m.Reload {
		return m.bytes
	}
	if m.reload == nil {
		lm := m.m
		lm.Reload = true
		m.reload = frame(lm)
	}
	return m.reload
}

// frame is a server-sent event of the message.
func frame(lm liveMessage) []byte {
	b, _ := json.Marshal(lm) // strings and bools only: cannot fail
	out := make([]byte, 0, len(b)+len(liveEventHead)+2)
	out = append(out, liveEventHead...)
	out = append(out, b...)
	return append(out, '\n', '\n')
}

const liveEventHead = "event: orders\ndata: "
