package console

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
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
	theirSession := frametest.Session(t, e.acc, access.RealmMerchant, "owner@other.test", e.code(t, "owner@other.test"))
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

// TestLiveFeedEndsWithItsSession: an open feed closes once its session
// ends, whichever way it ends, and an order created after that is never
// written to it; a feed with nothing to send closes too.
func TestLiveFeedEndsWithItsSession(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, err := e.acc.ByEmail(ctx, access.RealmMerchant, e.users[access.RoleOwner])
	if err != nil {
		t.Fatal(err)
	}
	ownerActor := access.Actor{ID: owner.ID, Email: owner.Email, Realm: string(access.RealmMerchant), Role: access.RoleOwner, AppID: e.shop, Source: "192.0.2.1"}
	logout := func(t *testing.T, s *access.Session, _ string) {
		c := &http.Cookie{Name: CookieName, Value: s.ID}
		if res, _ := e.do(t, http.MethodPost, Base+"/logout", url.Values{"csrf": {s.CSRF}}, c); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("logout answered %d", res.StatusCode)
		}
	}
	for i, tc := range []struct {
		name  string
		end   func(t *testing.T, s *access.Session, email string)
		quiet bool // no order after the end: the feed has nothing to send
	}{
		{"logout", logout, false},
		{"logout, then nothing happens", logout, true},
		{"log out everywhere, from another session", func(t *testing.T, _ *access.Session, email string) {
			e.clock.add(30 * time.Second)
			other := frametest.Session(t, e.acc, access.RealmMerchant, email, e.code(t, email))
			c := &http.Cookie{Name: CookieName, Value: other.ID}
			if res, _ := e.do(t, http.MethodPost, Base+"/logout", url.Values{"csrf": {other.CSRF}, "everywhere": {"1"}}, c); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("logout everywhere answered %d", res.StatusCode)
			}
		}, false},
		{"removed from the team by the owner", func(t *testing.T, s *access.Session, _ string) {
			if err := access.NewTeam(e.acc).SetDisabled(ctx, ownerActor, s.UserID, true); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"disabled from the CLI", func(t *testing.T, s *access.Session, _ string) {
			if err := access.NewTeam(e.acc).SetDisabled(ctx, access.CLI(), s.UserID, true); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"sessions revoked", func(t *testing.T, s *access.Session, _ string) {
			if err := e.acc.RevokeAll(ctx, ownerActor, s.UserID); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			email := fmt.Sprintf("watcher%d@shop.test", i)
			e.enrol(t, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop, Email: email, Role: access.RoleViewer})
			e.clock.add(30 * time.Second)
			s := frametest.Session(t, e.acc, access.RealmMerchant, email, e.code(t, email))
			_, feed := e.openFeed(t, &http.Cookie{Name: CookieName, Value: s.ID})
			e.listening(t, 1)
			before := liveOrder(e.shop, i%8)
			emit(t, e.rdb, before, schema.EventCreated)
			until(t, feed, before.ID, "pending")

			tc.end(t, s, email)
			after := liveOrder(e.shop, 8+i%8)
			if !tc.quiet {
				emit(t, e.rdb, after, schema.EventCreated)
			}
			deadline := time.After(10 * time.Second)
			for {
				select {
				case m, ok := <-feed:
					if !ok {
						return // closed, and the order never came
					}
					for _, o := range m.Orders {
						if o.ID == after.ID {
							t.Fatalf("order %s, created after the session ended, was pushed", after.ID)
						}
					}
				case <-deadline:
					t.Fatal("the feed is still open 10 s after its session ended")
				}
			}
		})
	}
}
