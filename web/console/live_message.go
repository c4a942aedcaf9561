package console

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/paygate/gateway/schema"
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

// change is the latest event of one order in a poll, as the fields the
// feed uses (slices of the poll's reply): an order changed many times in
// a poll, or left out by the cap, costs no decoding.
type change struct {
	at    int64 // the event's time (ms): orders the message
	seq   int   // the order's place in the poll: ties of at
	isNew bool
	e     rawEntry
}

// batch is one poll's changed orders of one merchant.
type batch struct {
	byID map[string]*change
	list []*change
	// skipped: the poll passed over entries it did not read (a stream had
	// more new ones than Count), which may include this merchant's.
	skipped bool
}

func newBatch() *batch { return &batch{byID: map[string]*change{}} }

// add notes an entry; false for an entry without an order id.
func (b *batch) add(e *rawEntry) bool {
	if len(e.id) == 0 {
		return false
	}
	// An order's first event is created, or paid for a balance order paid
	// at once; either way its version is 1.
	first := string(e.typ) == string(schema.EventCreated) || string(e.version) == "1"
	c := b.byID[string(e.id)]
	if c == nil {
		c = &change{seq: len(b.list)}
		b.byID[string(e.id)] = c
		b.list = append(b.list, c)
	}
	c.at, c.e = digits(e.at), *e
	c.isNew = c.isNew || first
	return true
}

// digits is a field's non-negative integer; 0 if it is not one.
func digits(b []byte) int64 {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// message renders the batch, its latest max orders oldest first (the page
// puts each new one on top, so the newest ends on top); nil when empty.
func (b *batch) message(max int) *message {
	if len(b.list) == 0 && !b.skipped {
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
	lm := liveMessage{Orders: make([]LiveOrder, len(list)), Reload: capped || b.skipped}
	for i, c := range list {
		lm.Orders[i] = c.order()
	}
	return &message{m: lm, bytes: sseFrame(lm)}
}

// order decodes the fields the table shows, once for every feed.
func (c *change) order() LiveOrder {
	e := &c.e
	created := ""
	if ms := digits(e.created); ms > 0 {
		created = time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
	} else if t, ok := schema.OrderIDTime(string(e.id)); ok { // the compact layout: the id carries it
		created = t.UTC().Format("2006-01-02 15:04:05")
	}
	amount, _ := strconv.ParseInt(string(e.amount), 10, 64)
	return LiveOrder{ID: string(e.id), ClientOrderID: string(e.clientID), Amount: schema.Amount(amount).String(),
		Currency: string(e.currency), Method: string(e.method), Status: schema.Status(digits(e.status)).String(),
		Created: created, Event: string(e.typ), New: c.isNew, Sandbox: string(e.sandbox) == "1"}
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
		m.reload = sseFrame(lm)
	}
	return m.reload
}

// sseFrame is a server-sent event of the message.
func sseFrame(lm liveMessage) []byte {
	b, _ := json.Marshal(lm) // strings and bools only: cannot fail
	out := make([]byte, 0, len(b)+len(liveEventHead)+2)
	out = append(out, liveEventHead...)
	out = append(out, b...)
	return append(out, '\n', '\n')
}

const liveEventHead = "event: orders\ndata: "
