package platform

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func consumerRedis(t *testing.T) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return mr, rdb
}

func newTestConsumer(t *testing.T, rdb redis.UniversalClient, name string, streams []string) *Consumer {
	t.Helper()
	c, err := NewConsumer(rdb, ConsumerConfig{Group: "g", Name: name, Streams: streams, Count: 3,
		Block: 20 * time.Millisecond, ClaimIdle: 50 * time.Millisecond}, quietLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.EnsureGroups(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func add(t *testing.T, rdb redis.UniversalClient, stream string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id, err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: stream, Values: []any{"n", i}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// drain takes from c until want entries came or the time is up.
func drain(t *testing.T, c *Consumer, want int) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	n := 0
	deadline := time.Now().Add(5 * time.Second)
	for n < want && time.Now().Before(deadline) {
		for _, st := range c.Next(context.Background(), 50*time.Millisecond, 100) {
			for _, m := range st.Messages {
				got[st.Stream] = append(got[st.Stream], m.ID)
				n++
			}
		}
	}
	return got
}

func TestConsumerReadsEveryStreamOnceInOrder(t *testing.T) {
	tests := []struct {
		name    string
		streams int
		each    int
	}{
		{"one stream, several reads", 1, 10},
		{"many streams", 16, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rdb := consumerRedis(t)
			var streams []string
			for i := range tt.streams {
				streams = append(streams, fmt.Sprintf("s%d", i))
			}
			c := newTestConsumer(t, rdb, "c1", streams)
			want := map[string][]string{}
			for _, s := range streams {
				want[s] = add(t, rdb, s, tt.each) // written before Start: the group starts at 0
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.Start(ctx)
			got := drain(t, c, tt.streams*tt.each)
			for _, s := range streams {
				if fmt.Sprint(got[s]) != fmt.Sprint(want[s]) {
					t.Errorf("%s: got %v, want %v", s, got[s], want[s])
				}
			}
			if err := c.Ack(ctx, got); err != nil {
				t.Fatal(err)
			}
			for _, s := range streams {
				if p := rdb.XPending(ctx, s, "g").Val(); p.Count != 0 {
					t.Errorf("%s: %d pending after ack", s, p.Count)
				}
			}
		})
	}
}

// A stream deleted under the readers (or a group lost in a failover) gets
// its group back, and entries written afterwards are read.
func TestConsumerRecreatesALostGroup(t *testing.T) {
	_, rdb := consumerRedis(t)
	c := newTestConsumer(t, rdb, "c1", []string{"s"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.Start(ctx)
	if err := rdb.Del(ctx, "s").Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if gs, err := rdb.XInfoGroups(ctx, "s").Result(); err == nil && len(gs) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	ids := add(t, rdb, "s", 2)
	if got := drain(t, c, 2); fmt.Sprint(got["s"]) != fmt.Sprint(ids) {
		t.Fatalf("after the group was lost: got %v, want %v", got["s"], ids)
	}
}

// Entries a consumer read and never acknowledged are taken over by another
// once idle, and read back by Pending under the first one's name.
func TestConsumerPendingAndClaim(t *testing.T) {
	_, rdb := consumerRedis(t)
	ctx := context.Background()
	dead := newTestConsumer(t, rdb, "dead", []string{"a", "b"})
	ids := append(add(t, rdb, "a", 2), add(t, rdb, "b", 1)...)
	dctx, stop := context.WithCancel(ctx)
	dead.Start(dctx)
	if got := drain(t, dead, 3); len(got["a"])+len(got["b"]) != 3 {
		t.Fatalf("dead consumer read %v", got)
	}
	stop()

	pending, err := dead.Pending(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids2(pending); fmt.Sprint(got) != fmt.Sprint(sorted(ids)) {
		t.Fatalf("Pending: got %v, want %v", got, sorted(ids))
	}

	heir := newTestConsumer(t, rdb, "heir", []string{"a", "b"})
	time.Sleep(60 * time.Millisecond) // past ClaimIdle
	var claimed []redis.XStream
	heir.Claim(ctx, 1, func(st redis.XStream) bool { claimed = append(claimed, st); return true })
	if got := ids2(claimed); fmt.Sprint(got) != fmt.Sprint(sorted(ids)) {
		t.Fatalf("Claim: got %v, want %v", got, sorted(ids))
	}
	if rest, _ := dead.Pending(ctx, 10); len(rest) != 0 {
		t.Fatalf("the dead consumer still holds %v", rest)
	}
}

func ids2(sts []redis.XStream) []string {
	var out []string
	for _, st := range sts {
		for _, m := range st.Messages {
			out = append(out, m.ID)
		}
	}
	return sorted(out)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// What the readers read and nobody took is returned by Stop, so a stopping
// process can handle and acknowledge it instead of leaving it pending.
func TestConsumerStopReturnsWhatItReadAhead(t *testing.T) {
	_, rdb := consumerRedis(t)
	c := newTestConsumer(t, rdb, "c1", []string{"s"})
	ids := add(t, rdb, "s", 3)
	ctx, cancel := context.WithCancel(context.Background())
	c.Start(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for rdb.XPending(context.Background(), "s", "g").Val().Count != 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the reader has read them and waits for Next
	}
	cancel()
	left := c.Stop()
	if got := ids2(left); fmt.Sprint(got) != fmt.Sprint(sorted(ids)) {
		t.Fatalf("Stop returned %v, want %v", got, sorted(ids))
	}
}
