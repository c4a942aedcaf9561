package main

import (
	"context"
	"strconv"
	"time"
)

// aofHeadroom is how much the AOF may grow in one phase, at most: a create
// phase at 13,500/s for 20 s writes about 380 MB.
const aofHeadroom = 512 << 20

// rewriteAOFAhead rewrites the AOF between phases when the next phase could
// push it past Redis's automatic rewrite threshold. A rewrite inside a phase
// makes single fsyncs wait up to 70 ms on this disk and decides that
// phase's tail; that is a fact about rewrites, which BENCHMARKS.md reports
// on its own, not about the phase's load. Every such rewrite is noted.
func (b *bench) rewriteAOFAhead(ctx context.Context, before string) {
	p := b.redisInfo(ctx, "persistence")
	cur, _ := strconv.ParseInt(p["aof_current_size"], 10, 64)
	base, _ := strconv.ParseInt(p["aof_base_size"], 10, 64)
	cfg, err := b.rdb.ConfigGet(ctx, "auto-aof-rewrite-*").Result()
	if err != nil || p["aof_enabled"] != "1" {
		return
	}
	minSize, _ := strconv.ParseInt(cfg["auto-aof-rewrite-min-size"], 10, 64)
	pct, _ := strconv.ParseInt(cfg["auto-aof-rewrite-percentage"], 10, 64)
	threshold, soon := rewriteSoon(cur, base, minSize, pct)
	if !soon {
		return
	}
	start := time.Now()
	if err := b.rdb.BgRewriteAOF(ctx).Err(); err != nil {
		b.note("could not rewrite the AOF before %s: %v", before, err)
		return
	}
	for ctx.Err() == nil && time.Since(start) < 2*time.Minute {
		time.Sleep(100 * time.Millisecond)
		p := b.redisInfo(ctx, "persistence")
		if p["aof_rewrite_in_progress"] == "0" && p["aof_rewrite_scheduled"] == "0" {
			break
		}
	}
	b.note("AOF rewritten before %s (%d MB, automatic rewrite at %d MB) so that no rewrite falls inside a phase; took %s",
		before, cur>>20, threshold>>20, time.Since(start).Round(100*time.Millisecond))
}

// rewriteSoon says whether Redis's automatic rewrite (at the larger of
// min-size and base grown by pct percent) could start within aofHeadroom
// more bytes; pct 0 turns automatic rewrites off.
func rewriteSoon(cur, base, minSize, pct int64) (threshold int64, soon bool) {
	if pct == 0 {
		return 0, false
	}
	threshold = max(minSize, base+base*pct/100)
	return threshold, cur+aofHeadroom >= threshold
}
