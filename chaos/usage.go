package chaos

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Usage is what a projector outage costs Redis, measured while ClickHouse
// is stopped: the projectors cannot acknowledge, so the trim floor stays
// and every event stays in its stream.
type Usage struct {
	Entries    int64   // stream entries added during the outage
	Bytes      int64   // growth of the streams' memory meanwhile
	Seconds    float64 // length of the outage
	MaxMemory  int64   // Redis's maxmemory (0: none set)
	UsedMemory int64   // used_memory after the outage
}

// BytesPerEntry is the measured memory of one stream entry.
func (u Usage) BytesPerEntry() float64 {
	if u.Entries == 0 {
		return 0
	}
	return float64(u.Bytes) / float64(u.Entries)
}

// EventsPerSecond is the event rate of the suite's load.
func (u Usage) EventsPerSecond() float64 {
	if u.Seconds == 0 {
		return 0
	}
	return float64(u.Entries) / u.Seconds
}

// OutageFor is how long the projectors may be down before headroom bytes
// of Redis memory fill at rate events per second:
// headroom / (bytes per entry × events per second).
func (u Usage) OutageFor(headroom int64, rate float64) time.Duration {
	b := u.BytesPerEntry()
	if b == 0 || rate == 0 {
		return 0
	}
	return time.Duration(float64(headroom) / (b * rate) * float64(time.Second))
}

// streamTotals sums every shard stream's memory and entries ever added.
func (c *Cluster) streamTotals(ctx context.Context) (bytes, added int64, err error) {
	for _, sh := range schema.AllShards() {
		key := schema.EventsKey(sh)
		n, err := c.rdb.MemoryUsage(ctx, key, 0).Result()
		if err != nil && !strings.Contains(err.Error(), "nil") {
			return 0, 0, fmt.Errorf("memory usage %s: %w", key, err)
		}
		bytes += n
		info, err := c.rdb.XInfoStream(ctx, key).Result()
		if err == nil {
			added += info.EntriesAdded
		}
	}
	return bytes, added, nil
}

// measureOutage samples the streams before and after fn (an outage).
func (c *Cluster) measureOutage(ctx context.Context, fn func() error) error {
	b0, a0, err := c.streamTotals(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	ferr := fn()
	b1, a1, err := c.streamTotals(ctx)
	if err != nil {
		return err
	}
	u := &Usage{Entries: a1 - a0, Bytes: b1 - b0, Seconds: time.Since(start).Seconds()}
	if cfg, err := c.rdb.ConfigGet(ctx, "maxmemory").Result(); err == nil {
		u.MaxMemory, _ = strconv.ParseInt(cfg["maxmemory"], 10, 64)
	}
	if info, err := c.rdb.Info(ctx, "memory").Result(); err == nil {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				u.UsedMemory, _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	c.usage = u
	return ferr
}
