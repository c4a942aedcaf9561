package console

import (
	"bufio"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/frame"
)

// liveFor bounds one feed connection: the browser reconnects by itself,
// and each reconnection goes through the full session check again (which
// marks the session used: a watched page stays logged in). Between, the
// hub ends the feed on the first poll after its session ended.
const liveFor = 5 * time.Minute

// live is the orders page's server-sent events: every poll's new and
// changed orders of the session's merchant, as one message.
func (c *Console) live(ctx *fiber.Ctx) error {
	if c.d.Live == nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindRouteNotFound, "no live feed on this node"))
	}
	s := frame.SessionOf(ctx)
	sub := c.d.Live.Subscribe(strings.Clone(s.AppID), strings.Clone(s.ID))
	if sub == nil {
		return c.ui.Fail(ctx, platform.Errorf(platform.KindUnavailable, "shutting down"))
	}
	ctx.Set(fiber.HeaderContentType, "text/event-stream")
	ctx.Set(fiber.HeaderCacheControl, "no-store")
	ctx.Set("X-Accel-Buffering", "no")
	hub := c.d.Live
	ctx.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer hub.Unsubscribe(sub)
		stream(w, sub)
	})
	return nil
}

// stream writes the feed until the hub stops, the client goes, the
// session ends, or liveFor. A message is the same bytes for every feed of
// the merchant: one write and one flush per feed per poll at most.
func stream(w *bufio.Writer, sub *Sub) {
	end := time.NewTimer(liveFor)
	defer end.Stop()
	beat := time.NewTicker(15 * time.Second)
	defer beat.Stop()
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
			_, err = w.Write(b)
		case <-beat.C:
			_, err = w.WriteString(": keep-alive\n\n")
		case <-sub.ended:
			return
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
