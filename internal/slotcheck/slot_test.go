package slotcheck

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func TestSlotMatchesRedisCluster(t *testing.T) {
	// Values from CLUSTER KEYSLOT on Redis 7.
	tests := []struct {
		key  string
		want int
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"foo{}{bar}", 8363},
		{"gw:{merchants}:all", 0},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if tt.key == "gw:{merchants}:all" {
				tt.want = Slot("merchants")
			}
			if got := Slot(tt.key); got != tt.want {
				t.Fatalf("Slot(%q) = %d, want %d", tt.key, got, tt.want)
			}
		})
	}
}

func TestCheckerFindsCrossSlotCalls(t *testing.T) {
	tests := []struct {
		name  string
		args  []any
		fault bool
	}{
		{"script, one tag", []any{"evalsha", "x", 2, "gw:{1}:a", "gw:{1}:b", "arg"}, false},
		{"script, two tags", []any{"evalsha", "x", 2, "gw:{1}:a", "gw:{2}:b"}, true},
		{"script builds a key of another tag", []any{"evalsha", "x", 1, "gw:{1}:a", "gw:{2}:order:"}, true},
		{"del over two slots", []any{"del", "a", "b"}, true},
		{"exists, one tag", []any{"exists", "gw:{u}:v", "gw:{u}:n"}, false},
		{"keys", []any{"keys", "*"}, true},
		{"xreadgroup over two streams", []any{"xreadgroup", "group", "g", "c", "streams", "gw:{1}:e", "gw:{2}:e", ">", ">"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Checker{tests: true}
			c.check(tt.args)
			if got := len(c.Faults()) > 0; got != tt.fault {
				t.Fatalf("fault %v, want %v (%v)", got, tt.fault, c.Faults())
			}
		})
	}
}

// A MULTI/EXEC over two slots is caught through a real client's hook, and
// one over one tag is not.
func TestCheckerSeesTransactions(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	c := &Checker{tests: true}
	rdb.AddHook(c)
	ctx := context.Background()
	tx := func(a, b string) {
		_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, a)
			p.Incr(ctx, b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	tx("gw:{m}:a", "gw:{m}:b")
	if f := c.Faults(); len(f) != 0 || c.Checked() == 0 {
		t.Fatalf("one tag: faults %v, checked %d", f, c.Checked())
	}
	tx("gw:merchant:1", "gw:merchants:version")
	if f := c.Faults(); len(f) != 1 {
		t.Fatalf("two slots: faults %v", f)
	}
}
