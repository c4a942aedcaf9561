package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// ConsumerConfig says which group a Consumer reads in, under which name, and
// how much at a time. A zero field takes its default.
type ConsumerConfig struct {
	Group     string        // schema.GroupProjector, schema.GroupDispatcher; required
	Name      string        // this process in the group; default ConsumerName()
	Streams   []string      // default every shard's event stream
	Count     int           // entries one read asks of each stream; default 256
	Block     time.Duration // how long one read waits for new entries; default 1s
	ClaimIdle time.Duration // an entry pending this long is taken over; default 30s
	// OnError hears every Redis error the consumer retries by itself (a
	// metric); the consumer logs them too.
	OnError func(what string, err error)
}

// ConsumerDefaults is every field's default; the group is the caller's.
func ConsumerDefaults() ConsumerConfig {
	c := ConsumerConfig{Name: ConsumerName(), Count: 256, Block: time.Second, ClaimIdle: 30 * time.Second}
	for _, s := range schema.AllShards() {
		c.Streams = append(c.Streams, schema.EventsKey(s))
	}
	return c
}

// withDefaults fills the zero fields from ConsumerDefaults.
func (c ConsumerConfig) withDefaults() ConsumerConfig {
	d := ConsumerDefaults()
	if c.Name == "" {
		c.Name = d.Name
	}
	if c.Streams == nil {
		c.Streams = d.Streams
	}
	if c.Count == 0 {
		c.Count = d.Count
	}
	if c.Block == 0 {
		c.Block = d.Block
	}
	if c.ClaimIdle == 0 {
		c.ClaimIdle = d.ClaimIdle
	}
	return c
}

// Validate reports every bad value at once; it changes nothing.
func (c ConsumerConfig) Validate() error {
	var errs []error
	if c.Group == "" {
		errs = append(errs, errors.New("consumer: group is empty"))
	}
	if len(c.Streams) == 0 {
		errs = append(errs, errors.New("consumer: no stream to read"))
	}
	if c.Count < 1 {
		errs = append(errs, fmt.Errorf("consumer: count %d is below 1", c.Count))
	}
	// A block of 0 would make Redis wait forever; below 1 ms it is 0.
	if c.Block < time.Millisecond {
		errs = append(errs, fmt.Errorf("consumer: block %s is below 1ms", c.Block))
	}
	if c.ClaimIdle < time.Millisecond {
		errs = append(errs, fmt.Errorf("consumer: claim idle %s is below 1ms", c.ClaimIdle))
	}
	return errors.Join(errs...)
}

// ConsumerName is hostname-pid: unique per live process, so two processes
// never share a pending list, and stable for a process's life.
func ConsumerName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "gateway"
	}
	return h + "-" + strconv.Itoa(os.Getpid())
}

// Consumer reads a consumer group over several streams: the projector's and
// the dispatcher's one way of doing it. Start runs one reader per set of
// streams one XREADGROUP may name: on one Redis node that is every stream
// in one blocking read (one round trip for all shards, as before Redis
// Cluster); on Redis Cluster, where a command's keys must share a slot, it is
// one reader per stream, each blocking on its own stream wherever the
// cluster keeps it. Next hands out what the readers got.
//
// A reader reads ahead by one read. Stop hands what the readers hold when
// the process stops to the caller, to handle before it exits; whatever a
// crash leaves pending under Name is taken over by Claim (of any process)
// once idle ClaimIdle, or read again by Pending under the same name.
type Consumer struct {
	rdb    redis.UniversalClient
	cfg    ConsumerConfig
	log    *slog.Logger
	groups [][]string // the streams each reader reads in one command
	reads  chan []redis.XStream

	readers sync.WaitGroup
	mu      sync.Mutex
	left    []redis.XStream // read after Next stopped taking, for Stop
}

// NewConsumer checks cfg; EnsureGroups then Start make it read.
func NewConsumer(rdb redis.UniversalClient, cfg ConsumerConfig, log *slog.Logger) (*Consumer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || log == nil {
		return nil, errors.New("consumer: redis and logger are required")
	}
	c := &Consumer{rdb: rdb, cfg: cfg, log: log.With("group", cfg.Group, "consumer", cfg.Name),
		reads: make(chan []redis.XStream)}
	if _, cluster := rdb.(*redis.ClusterClient); cluster {
		for _, s := range cfg.Streams {
			c.groups = append(c.groups, []string{s})
		}
	} else {
		c.groups = [][]string{cfg.Streams}
	}
	return c, nil
}

// Name is this process's name in the group.
func (c *Consumer) Name() string { return c.cfg.Name }

// EnsureGroups creates the group on every stream (and the stream, if none
// yet) from the stream's start, so events written before the first consumer
// ran are read too. A group that exists is left where it is.
func (c *Consumer) EnsureGroups(ctx context.Context) error {
	var errs []error
	for _, s := range c.cfg.Streams {
		errs = append(errs, c.ensureGroup(ctx, s))
	}
	return errors.Join(errs...)
}

func (c *Consumer) ensureGroup(ctx context.Context, stream string) error {
	err := c.rdb.XGroupCreateMkStream(ctx, stream, c.cfg.Group, "0").Err()
	if err != nil && !redis.HasErrorPrefix(err, "BUSYGROUP") {
		return fmt.Errorf("create consumer group %s on %s: %w", c.cfg.Group, stream, err)
	}
	return nil
}

// recover answers a NOGROUP (the stream was deleted, or a failover lost the
// group) by creating the group again; other errors need nothing.
func (c *Consumer) recover(ctx context.Context, streams []string, err error) {
	if !redis.HasErrorPrefix(err, "NOGROUP") {
		return
	}
	for _, s := range streams {
		if err := c.ensureGroup(ctx, s); err != nil {
			c.fail("recreate consumer group", err)
		}
	}
}

func (c *Consumer) fail(what string, err error) {
	c.log.Warn("consumer: "+what+" failed; will retry", "err", err)
	if c.cfg.OnError != nil {
		c.cfg.OnError(what, err)
	}
}
