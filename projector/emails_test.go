package projector

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestEmailLookupFilledWithTheBatch: the projector files every order that
// carries a customer e-mail under its normalised address in order_emails,
// with the order's creation time (the orders table's key), and one row per
// order once merged however many versions it has; an order without an
// e-mail is not filed.
func TestEmailLookupFilledWithTheBatch(t *testing.T) {
	e := newEnv(t)
	e.start(testConfig("p1"), NewClickHouse(e.ch))
	appid := "em" + time.Now().Format("150405.000000")
	want := map[string]schema.Order{}
	emails := map[string]string{}
	for i, raw := range []string{"  Ann@Example.COM ", "bob@example.com", ""} {
		o := newOrder(appid)
		o.CustomerEmail = raw
		e.emit(o, schema.EventCreated)
		o.Status, o.Version, o.CompletedAt = schema.StatusPaid, 2, time.Now().UTC()
		e.emit(o, schema.EventPaid)
		want[o.ID] = o
		emails[o.ID] = []string{"ann@example.com", "bob@example.com", ""}[i]
	}
	e.waitListed(appid, want, 10*time.Second)
	// The lookup rows are a second insert of the same flush: listed orders
	// may be seen a moment before them.
	testenv.Eventually(t, 10*time.Second, "the lookup rows of the flush", func() bool {
		var n uint64
		_ = e.ch.QueryRow(context.Background(), "SELECT count() FROM order_emails WHERE appid = ?", appid).Scan(&n)
		return n >= 2
	})

	rows, err := e.ch.Query(context.Background(), "SELECT id, email, created_at FROM order_emails FINAL WHERE appid = ?", appid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var id, email string
		var at time.Time
		if err := rows.Scan(&id, &email, &at); err != nil {
			t.Fatal(err)
		}
		if _, dup := got[id]; dup {
			t.Errorf("order %s filed under two addresses or times", id)
		}
		got[id] = email
		if !at.Equal(want[id].CreatedAt.Truncate(time.Second)) {
			t.Errorf("order %s filed at %s, created %s", id, at, want[id].CreatedAt)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, w := range emails {
		if got[id] != w {
			t.Errorf("order %s filed as %q, want %q", id, got[id], w)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d orders filed, want the 2 with an e-mail: %v", len(got), got)
	}
}
