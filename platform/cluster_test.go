package platform

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// A pipeline of scripts over every shard spans every master; after the
// scripts are flushed everywhere, each node answers NOSCRIPT and the batch
// loads the script (ScriptLoad on a cluster client loads it on every node)
// and runs every refused call again: none is lost.
func TestScriptPipelineRecoversNoScriptOnEveryNode(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	ctx := context.Background()
	run := rand.Text()[:8]
	sc := redis.NewScript(echoLua)
	var calls []ScriptCall
	for _, s := range schema.AllShards() {
		calls = append(calls, ScriptCall{Keys: []string{"gw:" + s.Tag() + ":test:" + run}, Args: []any{s.Tag()}})
	}
	for round := range 2 {
		if err := rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		for i, cmd := range EvalPipelined(ctx, rdb, sc, calls) {
			if got, err := cmd.Text(); err != nil || got != calls[i].Args[0] {
				t.Fatalf("round %d, call %d: %q, %v", round, i, got, err)
			}
		}
	}
	for _, c := range calls {
		if n := rdb.Get(ctx, c.Keys[0]).Val(); n != "2" {
			t.Fatalf("%s ran %s times, want 2", c.Keys[0], n)
		}
		rdb.Del(ctx, c.Keys[0])
	}
}

// On a cluster the consumer reads each shard stream on its own (one
// XREADGROUP may not name streams of several slots) and still sees every
// entry of every stream.
func TestConsumerReadsEveryShardOnRedisCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := rand.Text()[:8]
	var streams []string
	for _, s := range schema.AllShards() {
		streams = append(streams, "gw:"+s.Tag()+":test-events:"+run)
	}
	t.Cleanup(func() {
		for _, s := range streams {
			rdb.Del(context.Background(), s)
		}
	})
	c := newTestConsumer(t, rdb, "c1", streams)
	if len(c.groups) != len(streams) {
		t.Fatalf("%d readers for %d streams on a cluster", len(c.groups), len(streams))
	}
	want := 0
	for _, s := range streams {
		add(t, rdb, s, 5)
		want += 5
	}
	c.Start(ctx)
	got := drain(t, c, want)
	for _, s := range streams {
		if len(got[s]) != 5 {
			t.Errorf("%s: %d entries, want 5", s, len(got[s]))
		}
	}
	if err := c.Ack(ctx, got); err != nil {
		t.Fatal(err)
	}
	if pending, err := c.Pending(ctx, 10); err != nil || len(pending) != 0 {
		t.Fatalf("pending after ack: %v, %v", pending, err)
	}
}
