// Command ceiling is the least a create can cost on this machine: a fiber
// server whose POST handler runs one Redis script that writes an order-sized
// hash and appends its event to a shard stream, and answers a small JSON.
// Every real createorder must do at least that (DESIGN.md: one atomic script
// per change, the change and its event together), so `make bench` reports
// the gateway's createorder throughput as a fraction of this server's, run
// by the same generator against the same Redis.
//
// It does not parse, authenticate, sign-check or validate: those are what
// the gateway adds, and what the ratio prices.
//
// --writes N makes each request N such scripts one after the other: with
// appendfsync always every write waits for an fsync, so this shows what one
// more sequential write round trip per request (a rate-limit script, say)
// costs on this machine. --writes 0 answers without Redis: what fiber
// alone costs per request here, the floor of any gateway's share of a
// create (the part no cut in CPU per create can remove).
//
// --lanes N sends the scripts of concurrent requests in shared pipelines,
// N in flight, through the gateway's own platform.Batcher, as the
// gateway's creates go: what fiber and one batched script cost, with
// nothing of a create's own work. Without it each request makes its own
// round trip, as the ceiling always has (its figures stay comparable).
//
//	ceiling --addr 127.0.0.1:PORT --redis-url redis://127.0.0.1:6379/1 [--writes 1] [--lanes 8]
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// writeLua is the floor of create.lua: one HSET of the order and one XADD of
// its event carrying the order's fields, in one script, so it is one round
// trip and one AOF write. ARGV[1] is the event time, ARGV[2..] the fields.
const writeLua = `redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('XADD', KEYS[2], '*', 'type', 'created', 'at', ARGV[1], unpack(ARGV, 2))
return 1`

// numShards matches the gateway's spread of orders over 16 streams.
const numShards = 16

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ceiling", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback)")
	redisURL := fs.String("redis-url", "redis://127.0.0.1:6379/1", "Redis URL; use a database the gateway does not")
	writes := fs.Int("writes", 1, "sequential write scripts per request")
	lanes := fs.Int("lanes", 0, "send the scripts of concurrent requests in shared pipelines, this many in flight (0: one round trip each)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opt, err := redis.ParseURL(*redisURL)
	if err != nil {
		return fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ping redis: %w", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	if *writes < 0 || *lanes < 0 {
		return errors.New("--writes and --lanes must be at least 0")
	}
	h := &handler{rdb: rdb, script: redis.NewScript(writeLua), writes: *writes}
	if *lanes > 0 {
		h.batch = platform.NewBatcher(rdb, platform.BatcherConfig{Lanes: *lanes})
	}
	if err := h.script.Load(ctx, rdb).Err(); err != nil {
		return fmt.Errorf("load script: %w", err)
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true, BodyLimit: 1 << 20})
	app.Post("/api/createorder", h.create)
	app.Get("/readyz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(ln) }()
	slog.Info("ceiling serving", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	if err := app.ShutdownWithTimeout(5 * time.Second); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

type handler struct {
	rdb    *redis.Client
	script *redis.Script
	writes int
	batch  *platform.Batcher // nil: one round trip per script
}

// create writes a 15-field hash the size of a sandbox wallet order, and its
// event, with a fresh id on a random shard.
func (h *handler) create(c *fiber.Ctx) error {
	var rnd [9]byte
	_, _ = rand.Read(rnd[:])
	shard := int(rnd[0]) % numShards
	now := time.Now().UTC()
	id := "P" + now.Format("20060102150405") + fmt.Sprintf("%03d%02x", now.Nanosecond()/1e6, shard) + hex.EncodeToString(rnd[1:])
	ms := strconv.FormatInt(now.UnixMilli(), 10)
	tag := fmt.Sprintf("{%02x}", shard)
	fields := []any{
		"id", id, "appid", "1001", "sb", "1", "coid", "ceiling-" + id[20:], "amt", "10000",
		"cur", "CNY", "m", "wallet_a", "st", "1", "qr", "http://127.0.0.1/sandbox/checkout/" + id,
		"ip", "127.0.0.1", "desc", "bench order", "ct", ms, "ut", ms, "v", "1", "lang", "en",
	}
	args := append([]any{ms}, fields...)
	keys := []string{"ceiling:" + tag + ":order:" + id, "ceiling:" + tag + ":events"}
	for range h.writes {
		if err := h.write(c.UserContext(), keys, args); err != nil {
			return fmt.Errorf("write order: %w", err)
		}
	}
	return c.JSON(fiber.Map{"code": 0, "msg": "success", "data": fiber.Map{"paymentId": id, "status": 1}})
}

// write runs the script once, in a shared pipeline when batching.
func (h *handler) write(ctx context.Context, keys []string, args []any) error {
	if h.batch != nil {
		return h.batch.Script(ctx, h.script, keys, args...).Err()
	}
	return h.script.EvalSha(ctx, h.rdb, keys, args...).Err()
}
