package console

import (
	"bufio"
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/webui"
)

// liveFor bounds one feed connection: the browser reconnects by itself,
// and each reconnection goes through the full session check again (which
// marks the session used: a watched page stays logged in).
const liveFor = 5 * time.Minute

// liveCheck is how often an open feed with nothing to send asks whether
// its session still stands; a feed with a message asks before writing it.
// So a feed ends within liveCheck of its session (logout, "log out
// everywhere", revoked sessions, a removed or disabled account), and
// nothing that happened after the session ended is written.
const liveCheck = time.Second

// live is the orders page's server-sent events: every poll's new and
// changed orders of the session's merchant, as one message.
func (c *Console) live(ctx *fiber.Ctx) error {
	if c.d.Live == nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindRouteNotFound, "no live feed on this node"))
	}
	sub := c.d.Live.Subscribe(strings.Clone(webui.SessionOf(ctx).AppID))
	if sub == nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindUnavailable, "shutting down"))
	}
	ctx.Set(fiber.HeaderContentType, "text/event-stream")
	ctx.Set(fiber.HeaderCacheControl, "no-store")
	ctx.Set("X-Accel-Buffering", "no")
	hub := c.d.Live
	alive := c.sessionAlive(strings.Clone(webui.SessionOf(ctx).ID))
	ctx.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer hub.Unsubscribe(sub)
		stream(w, sub, alive)
	})
	return nil
}

// sessionAlive is the feed's session check: false once the session has
// ended, or when Redis cannot say (the browser reconnects through the
// full check).
func (c *Console) sessionAlive(id string) func() bool {
	return func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ok, err := c.d.Auth.Alive(ctx, id)
		if err != nil {
			c.log.Warn("console live feed: session check", "err", err)
		}
		return ok && err == nil
	}
}

// stream writes the feed until the hub stops, the client goes, the
// session ends (alive false), or liveFor. A message is the same bytes for
// every feed of the merchant: one write and one flush per feed per poll at
// most.
func stream(w *bufio.Writer, sub *Sub, alive func() bool) {
	end := time.NewTimer(liveFor)
	defer end.Stop()
	beat := time.NewTicker(15 * time.Second)
	defer beat.Stop()
	check := time.NewTicker(liveCheck)
	defer check.Stop()
	if _, err := w.WriteString("retry: 3000\n\n"); err != nil || w.Flush() != nil {
		return
	}
	for {
		var err error
		select {
		case <-sub.ready:
			b := sub.take()
			if b == nil {
				continue
			}
			if !alive() {
				return
			}
			_, err = w.Write(b)
		case <-beat.C:
			_, err = w.WriteString(": keep-alive\n\n")
		case <-check.C:
			if !alive() {
				return
			}
			continue
		case <-sub.done:
			return
		case <-end.C:
			return
		}
		if err != nil || w.Flush() != nil {
			return // the browser went away
		}
	}
}
