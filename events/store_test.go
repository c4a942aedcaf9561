package events

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// refuseHost is a URL checker that refuses one host, as the dispatcher's
// address rules refuse a private one.
type refuseHost string

func (h refuseHost) Check(_ context.Context, raw string) error {
	if strings.Contains(raw, string(h)) {
		return errors.New("webhook URL refused: the address is private")
	}
	return nil
}

type storeEnv struct {
	s   *Store
	rdb redis.UniversalClient
	now time.Time
}

func newStoreEnv(t *testing.T) *storeEnv {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	e := &storeEnv{rdb: rdb, now: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	cfg := Defaults()
	cfg.Now = func() time.Time { return e.now }
	s, err := NewStore(cfg, rdb, refuseHost("10.0.0.1"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	return e
}

func who() audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "u1", Realm: audit.RealmMerchant, Role: "developer", Source: "127.0.0.1"}
}

func kindOf(err error) platform.Kind {
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

func TestEndpointRules(t *testing.T) {
	e := newStoreEnv(t)
	ctx := context.Background()
	ep, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "https://shop.example/hooks", Types: []Type{OrderExpired}}, who())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep.Secret, "whsec_") || !ep.Enabled || !ep.Wants(OrderExpired) || ep.Wants(OrderPaid) {
		t.Fatalf("added %+v", ep)
	}
	cases := []struct {
		name string
		run  func() error
		kind platform.Kind
	}{
		{"a private address", func() error {
			_, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "http://10.0.0.1/hook"}, who())
			return err
		}, platform.KindInvalidParameter},
		{"an unknown event type", func() error {
			_, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "https://a.example/", Types: []Type{"order.exploded"}}, who())
			return err
		}, platform.KindInvalidParameter},
		{"another merchant's endpoint", func() error { _, err := e.s.Get(ctx, "1002", ep.ID); return err }, platform.KindNotFound},
		{"removing another merchant's endpoint", func() error { return e.s.Remove(ctx, "1002", ep.ID, who()) }, platform.KindNotFound},
		{"changing to a private address", func() error {
			u := "http://10.0.0.1/x"
			_, err := e.s.Update(ctx, "1001", ep.ID, Change{URL: &u}, who())
			return err
		}, platform.KindInvalidParameter},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if k := kindOf(tt.run()); k != tt.kind {
				t.Fatalf("kind %q, want %q", k, tt.kind)
			}
		})
	}
	if n, _ := e.rdb.XLen(ctx, schema.AuditKey(schema.HomeShard("1001").Tag())).Result(); n != 1 {
		t.Fatalf("%d audit entries after one add and refusals, want 1", n)
	}
}

func TestEleventhEndpointRefused(t *testing.T) {
	e := newStoreEnv(t)
	ctx := context.Background()
	for i := range 10 {
		if _, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "https://shop.example/" + string(rune('a'+i))}, who()); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "https://shop.example/k"}, who())
	if kindOf(err) != platform.KindConflict {
		t.Fatalf("the 11th endpoint: %v", err)
	}
	if _, err := e.s.Add(ctx, Endpoint{AppID: "1002", URL: "https://other.example/"}, who()); err != nil {
		t.Fatalf("another merchant's first endpoint: %v", err)
	}
}

func TestRotateOverlap(t *testing.T) {
	e := newStoreEnv(t)
	ctx := context.Background()
	ep, err := e.s.Add(ctx, Endpoint{AppID: "1001", URL: "https://shop.example/"}, who())
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.s.Rotate(ctx, "1001", ep.ID, time.Hour, who())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Secrets(e.now.Add(59 * time.Minute)); len(got) != 2 || got[0] == ep.Secret || got[1] != ep.Secret {
		t.Fatalf("within the overlap: %v", got)
	}
	if got := r.Secrets(e.now.Add(time.Hour)); len(got) != 1 || got[0] != r.Secret {
		t.Fatalf("after the overlap: %v", got)
	}
	d, err := e.s.Disable(ctx, "1001", ep.ID, "failing")
	if err != nil || d.Enabled || d.Wants(OrderPaid) || d.DisabledWhy != "failing" {
		t.Fatalf("disabled %+v, %v", d, err)
	}
	on := true
	if u, err := e.s.Update(ctx, "1001", ep.ID, Change{Enabled: &on}, who()); err != nil || !u.Enabled || u.DisabledWhy != "" {
		t.Fatalf("enabled again %+v, %v", u, err)
	}
}

func TestParseTypes(t *testing.T) {
	cases := []struct {
		name, in string
		want     int
		bad      bool
	}{
		{"all", "*", 0, false},
		{"empty is all", "", 0, false},
		{"two with a repeat", "order.expired, order.paid,order.expired", 2, false},
		{"unknown", "order.paid,order.payed", 0, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTypes(tt.in)
			if (err != nil) != tt.bad || len(got) != tt.want {
				t.Fatalf("%v, %v", got, err)
			}
		})
	}
}

func TestEventIDStable(t *testing.T) {
	a, _ := New(OrderExpired, "stream:1-0", time.Unix(1, 0), map[string]string{"id": "x"})
	b, _ := New(OrderExpired, "stream:1-0", time.Unix(2, 0), map[string]string{"id": "x"})
	c, _ := New(OrderPaid, "stream:1-0", time.Unix(1, 0), map[string]string{"id": "x"})
	if a.ID != b.ID || a.ID == c.ID || !strings.HasPrefix(a.ID, "evt_") {
		t.Fatalf("ids %s %s %s", a.ID, b.ID, c.ID)
	}
}
