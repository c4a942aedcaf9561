package dispatcher

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// BenchmarkDeliveryFloor is the least any at-least-once delivery engine
// does per endpoint delivery, measured on this machine: b.N deliveries wait
// in 16 Redis streams (the body in the entry, as if each were its own
// event), read in batches of 64 through one consumer group (the pending
// list is the lease: a reader that dies leaves them to another), each
// signed and posted through the dispatcher's own client to the receiver
// process of BenchmarkHTTPFloor, and its outcome recorded durably with the
// entry acknowledged (HSET of the attempt record, XACK), the records of
// concurrent deliveries sharing pipelines (platform.Batcher), Redis with
// appendfsync always as everywhere. No per-host queue, no per-object
// order, no retry, no history index, no health: what the engine keeps
// beyond this costs more, never less.
//
// It reports deliveries/s and the CPU per delivery of the three parties,
// which share this machine's cores as the drain's do: the engine (this
// process), Redis and the receiver. Their sum times the deliveries a
// target asks for is the CPU the target needs at the least.
// make bench-delivery-floor:
//
//	scripts/testenv.sh go test -run '^$' -bench DeliveryFloor -benchtime 60000x ./dispatcher
func BenchmarkDeliveryFloor(b *testing.B) {
	const ports, streams, group = 32, 16, "floor"
	cfg := floorConfig()
	ctx := context.Background()
	opt, err := redis.ParseURL(testenv.RedisURL(b))
	if err != nil {
		b.Fatal(err)
	}
	// A client without the tests' slot checker: its CPU is the engine's.
	rdb := redis.NewClient(opt)
	b.Cleanup(func() { _ = rdb.Close() })
	addrs, rcvPID := startFloorReceiver(b, ports)
	body := floorBody(b)
	keys := floorStreams(b, rdb, streams, group, addrs, b.N)
	client := newHTTPClient(cfg)
	secrets := []string{"whsec_" + strings.Repeat("QUJD", 8)}
	batch := platform.NewBatcher(rdb, platform.BatcherConfig{})
	jobs := make(chan floorJob, cfg.Concurrency)
	var failed, recorded atomic.Int64
	deliver := func(j floorJob) {
		at := time.Now()
		h, err := signModern(j.id, at, body, secrets)
		if err != nil {
			b.Error(err)
			return
		}
		cctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		res := postAs(cctx, client, j.url, body, jsonType, true, h, cfg.Timeout)
		cancel()
		if !res.ack {
			failed.Add(1)
		}
		rec, _ := json.Marshal(schema.WebhookAttempt{At: schema.WireTime(at), Attempt: 1, Status: res.status,
			LatencyMs: time.Since(at).Milliseconds(), Success: res.ack})
		ack := platform.Batched(ctx, batch, func(ctx context.Context, p redis.Pipeliner) *redis.IntCmd {
			p.HSet(ctx, "floor:rec:"+j.id, "st", "delivered", "a1", rec)
			return p.XAck(ctx, j.stream, group, j.entry)
		})
		if ack.Err() != nil {
			b.Error(ack.Err())
			return
		}
		recorded.Add(1)
	}
	self0, rcv0, rds0 := cpuSelf(b), cpuOf(b, rcvPID), redisCPU(b, rdb)
	b.ResetTimer()
	start := time.Now()
	var readers, workers sync.WaitGroup
	for _, key := range keys {
		readers.Go(func() { readFloor(ctx, b, rdb, key, group, jobs) })
	}
	for range cfg.Concurrency {
		workers.Go(func() {
			for j := range jobs {
				deliver(j)
			}
		})
	}
	readers.Wait()
	close(jobs)
	workers.Wait()
	took := time.Since(start)
	b.StopTimer()
	self, rcv, rds := cpuSelf(b)-self0, cpuOf(b, rcvPID)-rcv0, redisCPU(b, rdb)-rds0
	if n := failed.Load(); n > 0 || recorded.Load() != int64(b.N) {
		b.Fatalf("%d of %d recorded, %d not acknowledged", recorded.Load(), b.N, n)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(float64(b.N)/took.Seconds(), "deliveries/s")
	b.ReportMetric(per(self), "engine-µs/op")
	b.ReportMetric(per(rds), "redis-µs/op")
	b.ReportMetric(per(rcv), "receiver-µs/op")
	b.Logf("%d deliveries in %s: %.0f/s; CPU per delivery %.1f µs engine + %.1f µs Redis + %.1f µs receiver = %.1f µs (concurrency %d, %d ports, body %d bytes)",
		b.N, took.Round(time.Millisecond), float64(b.N)/took.Seconds(), per(self), per(rds), per(rcv), per(self+rds+rcv),
		cfg.Concurrency, ports, len(body))
}

// floorJob is one delivery read from a stream.
type floorJob struct{ stream, entry, id, url string }

// floorConfig is the dispatcher's default configuration with
// GATEWAY_WEBHOOK_CONCURRENCY and GATEWAY_WEBHOOK_PER_HOST applied, loopback
// allowed.
func floorConfig() Config {
	cfg := Defaults()
	if v, err := strconv.Atoi(os.Getenv("GATEWAY_WEBHOOK_CONCURRENCY")); err == nil && v > 0 {
		cfg.Concurrency = v
	}
	if v, err := strconv.Atoi(os.Getenv("GATEWAY_WEBHOOK_PER_HOST")); err == nil && v > 0 {
		cfg.PerHost = v
	}
	cfg.AllowPrivate = true
	return cfg
}

// floorStreams writes n deliveries over the streams, in turn, before the
// clock starts, each stream with its consumer group; it returns the keys.
// The delivery ids are event ids of 32 endpoints' worth, the URLs the
// receiver's ports in turn.
func floorStreams(tb testing.TB, rdb *redis.Client, streams int, group string, addrs []string, n int) []string {
	tb.Helper()
	ctx := context.Background()
	keys := make([]string, streams)
	for s := range keys {
		keys[s] = "floor:{" + strconv.Itoa(s) + "}:due"
		rdb.Del(ctx, keys[s])
		if err := rdb.XGroupCreateMkStream(ctx, keys[s], group, "0").Err(); err != nil {
			tb.Fatal(err)
		}
	}
	for lo := 0; lo < n; lo += 512 {
		_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := lo; i < min(lo+512, n); i++ {
				id := events.ID(events.OrderPaid, "floor:"+strconv.Itoa(i)) + ".ep" + strconv.Itoa(i%96)
				url := "http://" + addrs[i%len(addrs)] + "/ep" + strconv.Itoa(i%96)
				p.XAdd(ctx, &redis.XAddArgs{Stream: keys[i%streams], Values: []any{"id", id, "url", url}})
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return keys
}

// readFloor reads stream key in batches of 64 for the consumer group until
// it is empty, handing each entry to the workers.
func readFloor(ctx context.Context, tb testing.TB, rdb *redis.Client, key, group string, jobs chan<- floorJob) {
	for {
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "c1", Streams: []string{key, ">"},
			Count: 64, Block: -1}).Result()
		if errors.Is(err, redis.Nil) || (err == nil && (len(res) == 0 || len(res[0].Messages) == 0)) {
			return
		}
		if err != nil {
			tb.Error(err)
			return
		}
		for _, m := range res[0].Messages {
			id, _ := m.Values["id"].(string)
			url, _ := m.Values["url"].(string)
			jobs <- floorJob{stream: key, entry: m.ID, id: id, url: url}
		}
	}
}
