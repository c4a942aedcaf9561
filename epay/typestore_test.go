package epay

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// TestTypeStore: the default until the operator keeps a mapping, the
// operator's once kept (seen by another process within TypeStoreTTL), a
// malformed one refused and nothing kept, the default again after a reset,
// and a stored mapping that no longer parses an error rather than a
// silent fall back.
func TestTypeStore(t *testing.T) {
	ctx := context.Background()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	def, err := ParseTypes("t1=wallet_a")
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(0, 0)
	s, other := NewTypeStore(rdb, def), NewTypeStore(rdb, def)
	other.now = func() time.Time { return clock }
	word := func(s *TypeStore, w string) string {
		t.Helper()
		ty, err := s.Types(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := ty.Method(w)
		return string(m)
	}
	if got := word(s, "t1"); got != "wallet_a" {
		t.Fatalf("default: t1 is %q", got)
	}
	_ = word(other, "t1") // the other process reads and keeps the default
	if _, err := s.Set(ctx, "t1=wallet_b, t9=usdt_direct"); err != nil {
		t.Fatal(err)
	}
	if got := word(s, "t9"); got != "usdt_direct" {
		t.Fatalf("after set: t9 is %q", got)
	}
	if got := word(other, "t9"); got != "" {
		t.Fatalf("the other process read again within the TTL: t9 is %q", got)
	}
	clock = clock.Add(TypeStoreTTL)
	if got := word(other, "t1"); got != "wallet_b" {
		t.Fatalf("the other process after the TTL: t1 is %q", got)
	}
	if _, err := s.Set(ctx, "t1=nope"); err == nil {
		t.Fatal("an unknown method was kept")
	}
	if raw, _, _ := s.Stored(ctx); raw != "t1=wallet_b,t9=usdt_direct" {
		t.Fatalf("a refused set changed what is kept: %q", raw)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got := word(s, "t9"); got != "" {
		t.Fatalf("after reset: t9 is %q", got)
	}
	other.now = func() time.Time { return clock.Add(time.Hour) }
	mr.SetError("down")
	if got := word(other, "t1"); got != "wallet_b" {
		t.Fatalf("Redis away: t1 is %q, want the last mapping read", got)
	}
	if _, err := NewTypeStore(rdb, def).Types(ctx); err == nil {
		t.Fatal("Redis away and nothing read yet: no error")
	}
	mr.SetError("")
	mr.Set(TypesKey, "t1")
	s.forget()
	if _, err := s.Types(ctx); err == nil {
		t.Fatal("a stored mapping that does not parse was answered")
	}
}
