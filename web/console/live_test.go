package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// emit writes an order event as the command side's scripts do.
func emit(t *testing.T, rdb redis.UniversalClient, o *schema.Order, typ schema.EventType) {
	t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	if err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(typ, time.Now(), o)}).Err(); err != nil {
		t.Fatal(err)
	}
}

// liveOrder is an order of appid on shard, as a create leaves it.
func liveOrder(appid string, shard int) *schema.Order {
	now := time.Now()
	return &schema.Order{ID: schema.NewOrderID(now, schema.Shard(shard)), AppID: appid, ClientOrderID: "co-" + appid, Amount: 12050, Currency: "CNY",
		Method: "wallet_a", Description: "Tea", CustomerEmail: "payer@example.com", NotifyURL: "https://shop.example/hook", CreatedAt: now, UpdatedAt: now, Version: 1}
}

// paid is o after its payment, as the paid event carries it.
func paid(o *schema.Order) *schema.Order {
	p := *o
	p.Status, p.Version, p.CompletedAt = schema.StatusPaid, o.Version+1, time.Now()
	return &p
}

// testHub is a hub whose polls the test drives (no Run): each poll is a
// step the test sees, with no timing in between.
func testHub(t *testing.T, cfg HubConfig) (*Hub, redis.UniversalClient) {
	t.Helper()
	rdb := testenv.Redis(t)
	h, err := NewHub(cfg, rdb, allAlive{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return h, rdb
}

// start is where a feed opened now starts: the streams' ends.
func start(t *testing.T, h *Hub) map[string]string {
	t.Helper()
	last, err := h.tails(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return last
}

func pollOnce(t *testing.T, h *Hub, last map[string]string) {
	t.Helper()
	if _, err := h.poll(context.Background(), last); err != nil {
		t.Fatal(err)
	}
}

// decode reads one server-sent event of the feed.
func decode(t *testing.T, b []byte) liveMessage {
	t.Helper()
	data, ok := bytes.CutPrefix(b, []byte(liveEventHead))
	if !ok || !bytes.HasSuffix(data, []byte("\n\n")) {
		t.Fatalf("not one orders event: %q", b)
	}
	var m liveMessage
	if err := json.Unmarshal(bytes.TrimSuffix(data, []byte("\n\n")), &m); err != nil {
		t.Fatalf("message %q: %v", b, err)
	}
	return m
}

func ids(m liveMessage) []string {
	var out []string
	for _, o := range m.Orders {
		out = append(out, o.ID)
	}
	return out
}

func TestLiveFeedOneRenderingForAHundredFeeds(t *testing.T) {
	h, rdb := testHub(t, HubConfig{})
	const feeds = 100
	var shop []*Sub
	for range feeds {
		shop = append(shop, h.Subscribe("shop", ""))
	}
	other := h.Subscribe("other", "")
	old := liveOrder("shop", 2)
	emit(t, rdb, old, schema.EventCreated) // before the feed's start: never sent
	last := start(t, h)

	a, b, theirs := liveOrder("shop", 3), liveOrder("shop", 9), liveOrder("other", 3)
	emit(t, rdb, a, schema.EventCreated)
	emit(t, rdb, b, schema.EventCreated)
	emit(t, rdb, theirs, schema.EventCreated)
	emit(t, rdb, paid(a), schema.EventPaid) // a's latest state wins
	pollOnce(t, h, last)

	first := shop[0].take()
	for i, s := range shop {
		got := s.take()
		if i > 0 && (!bytes.Equal(got, first) || unsafe.SliceData(got) != unsafe.SliceData(first)) {
			t.Fatalf("feed %d got other bytes than feed 0 (or a copy of them): %q vs %q", i, got, first)
		}
	}
	m := decode(t, first)
	if want := []string{b.ID, a.ID}; !slices.Equal(ids(m), want) && !slices.Equal(ids(m), []string{a.ID, b.ID}) {
		t.Fatalf("orders %v, want %v", ids(m), want)
	}
	for _, o := range m.Orders {
		if o.ID == a.ID && (o.Status != "paid" || !o.New || o.Amount != "120.50" || o.Event != "paid") {
			t.Errorf("a coalesced into %+v, want paid, new, 120.50", o)
		}
		if o.ID == theirs.ID || o.ID == old.ID {
			t.Errorf("the shop's feed carries %s", o.ID)
		}
	}
	if m.Reload {
		t.Error("a complete message asks for a reload")
	}
	if om := decode(t, other.take()); !slices.Equal(ids(om), []string{theirs.ID}) {
		t.Errorf("the other merchant's feed carries %v, want only its own %s", ids(om), theirs.ID)
	}
	if n := testutil.ToFloat64(h.messages); n != 2 {
		t.Errorf("%v messages rendered for 2 merchants in one poll", n)
	}
	if n := testutil.ToFloat64(h.sent); n != feeds+1 {
		t.Errorf("%v messages handed out, want %d", n, feeds+1)
	}
}

func TestLiveFeedSlowFeedLosesAndIsToldToReload(t *testing.T) {
	h, rdb := testHub(t, HubConfig{})
	fast, slow := h.Subscribe("shop", ""), h.Subscribe("shop", "")
	last := start(t, h)
	var got []string
	var reloads []bool
	poll := func(n int) []string {
		var want []string
		for i := range n {
			o := liveOrder("shop", i)
			emit(t, rdb, o, schema.EventCreated)
			want = append(want, o.ID)
		}
		pollOnce(t, h, last)
		m := decode(t, fast.take()) // the fast feed writes each message at once
		got, reloads = append(got, ids(m)...), append(reloads, m.Reload)
		return want
	}
	first := poll(3)
	second := poll(2) // the slow feed has not written the first message
	if want := append(slices.Clone(first), second...); !slices.Equal(got, want) || slices.Contains(reloads, true) {
		t.Errorf("the fast feed got %v (reload %v), want every order %v and no reload", got, reloads, want)
	}
	m := decode(t, slow.take())
	if !m.Reload || !slices.Equal(ids(m), second) {
		t.Errorf("the slow feed got %v reload=%v, want the latest poll's %v with the reload hint", ids(m), m.Reload, second)
	}
	if slow.take() != nil {
		t.Error("the slow feed holds more than one message")
	}
	if n := testutil.ToFloat64(h.drops); n != 1 {
		t.Errorf("%v drops counted, want 1", n)
	}
}

func TestLiveFeedCapsAMessageAtThePage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		orders     int
		wantReload bool
	}{
		{"what the page shows", 4, false},
		{"more than the page shows", 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, rdb := testHub(t, HubConfig{MaxOrders: 4})
			s := h.Subscribe("shop", "")
			last := start(t, h)
			var all []string
			for i := range tc.orders {
				o := liveOrder("shop", i)
				o.CreatedAt = o.CreatedAt.Add(time.Duration(i) * time.Second)
				shard, _ := schema.ParseOrderID(o.ID)
				// Each event a millisecond later: the message keeps the latest.
				at := time.Now().Add(time.Duration(i) * time.Millisecond)
				if err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(schema.EventCreated, at, o)}).Err(); err != nil {
					t.Fatal(err)
				}
				all = append(all, o.ID)
			}
			pollOnce(t, h, last)
			m := decode(t, s.take())
			if want := all[max(0, len(all)-4):]; !slices.Equal(ids(m), want) || m.Reload != tc.wantReload {
				t.Errorf("got %v reload=%v, want the latest %v reload=%v", ids(m), m.Reload, want, tc.wantReload)
			}
		})
	}
}

// A stream with more new entries than Count in one poll is read from its
// newest: the feed's cost stays bounded however fast orders come, the
// page shows the latest changes, and every open page (a quiet merchant's
// too: its orders may have been among those passed over) is told to
// reload. The next poll starts after the newest entry read.
func TestLiveFeedSkipsToTheNewestWhenAStreamOverflows(t *testing.T) {
	h, rdb := testHub(t, HubConfig{Count: 2, MaxOrders: 10})
	busy, quiet := h.Subscribe("shop", ""), h.Subscribe("quiet", "")
	last := start(t, h)
	var sent []string
	for range 5 {
		o := liveOrder("shop", 4)
		emit(t, rdb, o, schema.EventCreated)
		sent = append(sent, o.ID)
	}
	pollOnce(t, h, last)
	m := decode(t, busy.take())
	if !slices.Equal(ids(m), sent[3:]) || !m.Reload {
		t.Errorf("busy merchant got %v reload %v, want the newest %v and the reload hint", ids(m), m.Reload, sent[3:])
	}
	if q := decode(t, quiet.take()); len(q.Orders) != 0 || !q.Reload {
		t.Errorf("quiet merchant got %v reload %v, want only the reload hint", ids(q), q.Reload)
	}
	if got := testutil.ToFloat64(h.behind); got != 1 {
		t.Errorf("behind = %v, want 1", got)
	}
	o := liveOrder("shop", 4)
	emit(t, rdb, o, schema.EventCreated)
	pollOnce(t, h, last)
	if m := decode(t, busy.take()); !slices.Equal(ids(m), []string{o.ID}) || m.Reload {
		t.Errorf("after the skip got %v reload %v, want just %s", ids(m), m.Reload, o.ID)
	}
	if b := quiet.take(); b != nil {
		t.Errorf("quiet merchant got %q from a poll that skipped nothing", b)
	}
	if m.Orders[0].Created == "" {
		t.Error("a live order without its creation time")
	}
}

func TestLiveFeedRunsAndStops(t *testing.T) {
	h, rdb := testHub(t, HubConfig{Every: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	s := h.Subscribe("shop", "")
	// The feed starts at the streams' ends once someone listens: wait
	// until the reader has polled at least once after the subscription.
	testenv.Eventually(t, 5*time.Second, "the feed's first poll", func() bool { return testutil.ToFloat64(h.reads) >= 2 })
	o := liveOrder("shop", 5)
	emit(t, rdb, o, schema.EventCreated)
	select {
	case <-s.ready:
		if m := decode(t, s.take()); !slices.Equal(ids(m), []string{o.ID}) {
			t.Errorf("got %v, want %s", ids(m), o.ID)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
	}
	h.Unsubscribe(s)
	if testutil.ToFloat64(h.open) != 0 {
		t.Errorf("%v feeds open after all closed", testutil.ToFloat64(h.open))
	}
	cancel()
	<-done
	select {
	case <-s.done:
	default:
		t.Error("the feed did not end with the hub")
	}
	if h.Subscribe("shop", "") != nil {
		t.Error("a stopped hub opened a feed")
	}
}

// allAlive is a session check for tests of other concerns: every session
// stands.
type allAlive struct{}

func (allAlive) Alive(_ context.Context, ids []string) ([]bool, error) {
	out := make([]bool, len(ids))
	for i := range out {
		out[i] = true
	}
	return out, nil
}

// sessionsOf is a session check over a set of standing sessions, or one
// that cannot answer.
type sessionsOf struct {
	alive map[string]bool
	err   error
}

func (s sessionsOf) Alive(_ context.Context, ids []string) ([]bool, error) {
	if s.err != nil {
		return nil, s.err
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = s.alive[id]
	}
	return out, nil
}

// TestLiveFeedEndsFeedsOfEndedSessions: a poll ends the feeds whose
// session no longer stands and hands them nothing; when the check cannot
// answer, every feed ends (the browsers reconnect through the full check).
func TestLiveFeedEndsFeedsOfEndedSessions(t *testing.T) {
	ended := func(s *Sub) bool {
		select {
		case <-s.ended:
			return true
		default:
			return false
		}
	}
	for _, tc := range []struct {
		name     string
		sessions Sessions
		wantGone bool // the live session's feed ends too
	}{
		{"one session ended", sessionsOf{alive: map[string]bool{"live": true}}, false},
		{"the check cannot answer", sessionsOf{err: errors.New("redis down")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb := testenv.Redis(t)
			h, err := NewHub(HubConfig{}, rdb, tc.sessions, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			live, gone := h.Subscribe("shop", "live"), h.Subscribe("shop", "gone")
			last := start(t, h)
			emit(t, rdb, liveOrder("shop", 3), schema.EventCreated)
			pollOnce(t, h, last)
			if !ended(gone) || gone.take() != nil {
				t.Fatal("the ended session's feed is open, or was handed the poll's message")
			}
			if ended(live) != tc.wantGone || (live.take() == nil) != tc.wantGone {
				t.Fatalf("the standing session's feed: ended %v, want %v", ended(live), tc.wantGone)
			}
		})
	}
}
