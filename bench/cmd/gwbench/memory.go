package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// memoryScenario is what an order costs in Redis and a row in ClickHouse.
type memoryScenario struct{ *bench }

// redisMemory prices a live order in Redis three ways: MEMORY USAGE of a
// sample of the order hashes, plus the order's share of its merchant's
// clientOrderIds hashes and of the expiry buckets and index (what a live
// order holds for its whole life), the stream entry per event (held until
// every consumer group has acknowledged it and the projector trims), and
// the growth of used_memory per create over the createorder phases (all of
// it, allocator overhead included, streams untrimmed: no consumer runs then),
// and that growth less the streams' own: what Redis holds per live order
// (the row held to ≤ 400 B), counted over every create answered, warm-up
// included.
func (b memoryScenario) redisMemory(ctx context.Context, run *createRun, usedBefore string, streamsBefore int64, creates uint64) {
	var samples []*redis.IntCmd
	step := max(1, len(run.ids)/1000)
	_, err := b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < len(run.ids); i += step {
			id := run.ids[i]
			if shard, ok := schema.ParseOrderID(id); ok {
				samples = append(samples, p.MemoryUsage(ctx, schema.OrderKey(shard, id), 0))
			}
		}
		return nil
	})
	if err != nil {
		b.note("redis MEMORY USAGE: %v", err)
		return
	}
	var hashes int64
	for _, s := range samples {
		hashes += s.Val()
	}
	m := &b.rep.Memory
	streamBytes, entries := b.streamBytes(ctx)
	if entries > 0 {
		m.RedisStreamBytes = float64(streamBytes) / float64(entries)
	}
	m.RedisIndexBytes = b.expiryBytes(ctx)
	coid := b.clientOrderBytes(ctx, run.merchant.AppID)
	if len(samples) > 0 {
		m.RedisSampled = len(samples)
		m.RedisHashBytes = float64(hashes) / float64(len(samples))
		m.RedisOrderBytes = m.RedisHashBytes + coid + m.RedisIndexBytes
	}
	before, err1 := strconv.ParseFloat(usedBefore, 64)
	after, err2 := strconv.ParseFloat(b.redisInfo(ctx, "memory")["used_memory"], 64)
	if err1 == nil && err2 == nil && creates > 0 {
		m.RedisUsedPerOrder = (after - before) / float64(creates)
		m.RedisLivePerOrder = (after - before - float64(streamBytes-streamsBefore)) / float64(creates)
		m.RedisCreates = creates
	}
	b.logf("redis: %.0f B per order (hash %.0f B, clientOrderId %.0f B, expiry index %.0f B) over %d samples, %.0f B per stream entry, used_memory +%.0f B per create, %.0f B less the streams' growth",
		m.RedisOrderBytes, m.RedisHashBytes, coid, m.RedisIndexBytes, m.RedisSampled, m.RedisStreamBytes, m.RedisUsedPerOrder, m.RedisLivePerOrder)
}

// clientOrderBytes is the merchant's clientOrderIds hashes' MEMORY USAGE
// per field, over every shard.
func (b memoryScenario) clientOrderBytes(ctx context.Context, appid string) float64 {
	var bytes, fields int64
	for _, s := range schema.AllShards() {
		key := schema.ClientOrdersKey(s, appid)
		bytes += b.rdb.MemoryUsage(ctx, key, 0).Val()
		fields += b.rdb.HLen(ctx, key).Val()
	}
	if fields == 0 {
		return 0
	}
	return float64(bytes) / float64(fields)
}

// expiryBytes is the expiry index's and buckets' MEMORY USAGE per entry,
// over every shard; the buckets are found by SCAN (one node: the bench's
// Redis).
func (b memoryScenario) expiryBytes(ctx context.Context) float64 {
	var bytes, entries int64
	for _, s := range schema.AllShards() {
		bytes += b.rdb.MemoryUsage(ctx, schema.ExpiryKey(s), 0).Val()
		entries += b.rdb.ZCard(ctx, schema.ExpiryKey(s)).Val()
	}
	iter := b.rdb.Scan(ctx, 0, "gw:{*}:exp:*", 1000).Iterator()
	for iter.Next(ctx) {
		bytes += b.rdb.MemoryUsage(ctx, iter.Val(), 0).Val()
		entries += b.rdb.LLen(ctx, iter.Val()).Val()
	}
	if err := iter.Err(); err != nil {
		b.note("scan expiry buckets: %v", err)
	}
	if entries == 0 {
		return 0
	}
	return float64(bytes) / float64(entries)
}

// streamBytes is the memory of every shard's event stream (MEMORY USAGE,
// every node sampled) and how many entries they hold.
func (b memoryScenario) streamBytes(ctx context.Context) (bytes, entries int64) {
	for _, s := range schema.AllShards() {
		key := schema.EventsKey(s)
		bytes += b.rdb.MemoryUsage(ctx, key, 0).Val()
		entries += b.rdb.XLen(ctx, key).Val()
	}
	return bytes, entries
}

// clickhouseMemory is the orders table's size on disk per row, over its
// active parts: every stored version of every order (the listing's
// synthetic orders included, which have the shape of real ones).
func (b memoryScenario) clickhouseMemory(ctx context.Context) error {
	var bytes, rows uint64
	q := "SELECT sum(bytes_on_disk), sum(rows) FROM system.parts WHERE active AND database = 'gateway' AND table = 'orders'"
	if err := b.ch.QueryRow(ctx, q).Scan(&bytes, &rows); err != nil {
		// ClickHouse 18.16 calls the column bytes.
		q = "SELECT sum(bytes), sum(rows) FROM system.parts WHERE active AND database = 'gateway' AND table = 'orders'"
		if err2 := b.ch.QueryRow(ctx, q).Scan(&bytes, &rows); err2 != nil {
			return fmt.Errorf("system.parts: %w (and %w)", err, err2)
		}
	}
	m := &b.rep.Memory
	m.CHBytes, m.CHRows = bytes, rows
	if rows > 0 {
		m.CHBytesPerRow = float64(bytes) / float64(rows)
	}
	return nil
}
