package platform

import (
	"context"
	"time"
)

// Every calls fn every interval until ctx ends, the first time one interval
// after it is called; it returns when ctx ends. A call that takes longer
// than interval delays the next one instead of piling calls up (a ticker
// drops the ticks it missed). The roles' housekeeping loops (expiry sweep,
// stream trims, reclaiming idle entries, the merchant cache) run on it.
func Every(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn(ctx)
	}
}
