package console

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/webui/webuitest"
)

// openFeed opens the live feed as the browser's EventSource does; the
// answer's status, and its messages as they come (nil channel unless 200).
func (e *env) openFeed(t *testing.T, c *http.Cookie, query ...string) (int, <-chan liveMessage) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.base+"/orders/live"+strings.Join(query, ""), nil)
	req.Header.Set("Accept", "text/event-stream")
	if c != nil {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return res.StatusCode, nil
	}
	out := make(chan liveMessage, 100)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			var m liveMessage
			if ok && json.Unmarshal([]byte(data), &m) == nil {
				out <- m
			}
		}
	}()
	return res.StatusCode, out
}

// until reads messages until one carries id with status; every order
// seen on the way is returned.
func until(t *testing.T, feed <-chan liveMessage, id, status string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-feed:
			if !ok {
				t.Fatalf("the feed ended before %s was %s", id, status)
			}
			for _, o := range m.Orders {
				seen[o.ID] = true
				if o.ID == id && o.Status == status {
					return seen
				}
			}
		case <-deadline:
			t.Fatalf("%s never came as %s (saw %v)", id, status, seen)
		}
	}
}

func TestLiveFeedOverHTTPCarriesOnlyTheSessionsMerchant(t *testing.T) {
	e := newEnv(t)
	viewer, _ := e.session(t, access.RoleViewer)
	theirSession := webuitest.Session(t, e.acc, access.RealmMerchant, "owner@other.test", e.code(t, "owner@other.test"))
	them := &http.Cookie{Name: CookieName, Value: theirSession.ID}
	for _, tc := range []struct {
		name   string
		cookie *http.Cookie
		want   int
	}{
		{"no session", nil, http.StatusNoContent},
		{"an unknown session", &http.Cookie{Name: CookieName, Value: "forged" + viewer.Value[6:]}, http.StatusNoContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, _ := e.openFeed(t, tc.cookie); st != tc.want {
				t.Errorf("answered %d, want %d", st, tc.want)
			}
		})
	}
	_, shopFeed := e.openFeed(t, viewer)
	_, theirFeed := e.openFeed(t, them)
	// The merchant is the session's: a feed asking for another's gets its own.
	_, askingFeed := e.openFeed(t, viewer, "?appid="+e.other+"&merchant="+e.other)
	e.listening(t, 3)

	mine, theirs := liveOrder(e.shop, 11), liveOrder(e.other, 11)
	emit(t, e.rdb, mine, schema.EventCreated)
	emit(t, e.rdb, theirs, schema.EventCreated)
	emit(t, e.rdb, paid(theirs), schema.EventPaid)
	emit(t, e.rdb, paid(mine), schema.EventPaid) // last in the stream: when it came, theirs was read
	if seen := until(t, shopFeed, mine.ID, "paid"); seen[theirs.ID] {
		t.Errorf("the shop's feed carried the other merchant's order %s", theirs.ID)
	}
	if seen := until(t, askingFeed, mine.ID, "paid"); seen[theirs.ID] {
		t.Errorf("a feed asking for the other merchant carried its order %s", theirs.ID)
	}
	if seen := until(t, theirFeed, theirs.ID, "paid"); seen[mine.ID] {
		t.Errorf("the other merchant's feed carried the shop's order %s", mine.ID)
	}

	// A reconnection after the session ended is refused: the page reloads
	// into the login.
	e.clock.add(31 * time.Minute)
	if st, _ := e.openFeed(t, viewer); st != http.StatusNoContent {
		t.Errorf("a reconnection of an idle-expired session answered %d, want 204", st)
	}
}
