package dispatcher

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// eventAnswerKept is how much of an endpoint's answer an attempt keeps.
const eventAnswerKept = 1 << 10

// Why an endpoint delivery is dead-lettered without its retries.
const (
	whyDisabled = "endpoint disabled"
	whyRemoved  = "endpoint removed"
)

// attemptEvent makes one claimed attempt of an endpoint delivery and
// records it, as attempt does a paid webhook's: same deadline from the
// claim, same record-then-claim-next for the slot.
func (d *Dispatcher) attemptEvent(ctx context.Context, j job, more bool) *job {
	actx, cancel := context.WithDeadline(context.WithoutCancel(ctx), j.claimed.Add(d.cfg.Timeout))
	started := time.Now()
	res, drop, changed := d.ev.send(actx, d.client, j)
	cancel()
	rec := schema.WebhookAttempt{
		At: schema.WireTime(started), Attempt: j.seq, Manual: j.manual != "", Status: res.status,
		Error: res.err, Body: eventAnswer(res.body), LatencyMs: res.latency.Milliseconds(), Success: res.ack,
	}
	prefix := ""
	if more {
		prefix = d.tokenPrefix()
	}
	outcome, disable, next := d.ev.record(ctx, j, res.ack, rec, drop, changed, d.nextDelay(j), prefix, d.redisError)
	d.m.attemptS.Observe(res.latency.Seconds())
	d.ev.observe(j, res, outcome, drop)
	if disable {
		_, epid, _ := splitDelivery(j.id)
		d.ev.disable(context.WithoutCancel(ctx), j.appid, epid)
	}
	return next
}

// send signs the stored body with the endpoint's secrets of this moment
// (two during a rotation's overlap) and posts it. An endpoint that is gone
// or disabled is not sent to: drop says why the delivery is dead-lettered
// instead. changed is when the endpoint was last changed: failures before
// it (before it was enabled again, say) do not count toward disabling it.
func (e *EventDeliveries) send(ctx context.Context, client *fasthttp.Client, j job) (res result, drop string, changed time.Time) {
	evid, _, ok := splitDelivery(j.id)
	if !ok {
		return result{kind: "internal", err: "internal error: the delivery names no endpoint"}, "", changed
	}
	if e.eps == nil {
		return result{kind: "internal", err: "internal error: endpoints cannot be read"}, "", changed
	}
	// The claim read the endpoint with the delivery, at this attempt's
	// start: what a rotation or a disable did before it applies to it.
	var ep events.Endpoint
	var err error = platform.Errorf(platform.KindNotFound, "no such webhook endpoint")
	if j.ep != "" {
		ep, err = events.DecodeEndpoint(j.ep)
	}
	var pe *platform.Error
	switch {
	case errors.As(err, &pe) && pe.Kind == platform.KindNotFound:
		return result{kind: "not_sent", err: "not sent: the endpoint was removed"}, whyRemoved, changed
	case err != nil:
		return result{kind: "internal", err: "cannot sign: the endpoint cannot be read", detail: err.Error()}, "", changed
	case !ep.Enabled:
		return result{kind: "not_sent", err: "not sent: the endpoint is disabled"}, whyDisabled, ep.Updated
	}
	now := e.now()
	h, err := signModern(evid, now, j.form, ep.Secrets(now))
	if err != nil {
		return result{kind: "internal", err: "cannot sign: " + err.Error()}, "", ep.Updated
	}
	return postAs(ctx, client, j.url, j.form, jsonType, true, h, e.cfg.Timeout), "", ep.Updated
}

// eventAnswer is the start of an endpoint's answer as its attempt keeps it.
func eventAnswer(body []byte) string {
	if len(body) > eventAnswerKept {
		body = body[:eventAnswerKept]
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

// record stores the outcome, retrying briefly like recordAttempt: an
// attempt it cannot record is made again once its lease ends (at least
// once, with the same webhook-id). With a token prefix the record also
// claims the host queue's next due delivery, only on its first try.
func (e *EventDeliveries) record(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, drop string, changed time.Time, next time.Duration,
	prefix string, redisError func(string, error)) (string, bool, *job) {
	var pause backoff
	for try := 0; ; try++ {
		if try > 0 {
			prefix = ""
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		out, disable, nj, err := e.store.recordEvent(rctx, j, ack, rec, next, drop, prefix, e.cfg.EndpointDisableAfter, changed)
		cancel()
		if err == nil {
			return out, disable, nj
		}
		redisError("record event attempt", err)
		if try == 2 {
			e.log.Error("event attempt not recorded; it will be made again when its lease ends",
				"delivery", j.id, "attempt", j.seq, "acknowledged", ack, "err", err)
			return "unrecorded", false, nil
		}
		pause.wait(context.WithoutCancel(ctx))
	}
}

// observe counts and logs one endpoint attempt.
func (e *EventDeliveries) observe(j job, res result, outcome, drop string) {
	m := e.m
	m.attempts.WithLabelValues(res.kind).Inc()
	switch {
	case outcome == "delivered":
		m.ended.WithLabelValues("delivered").Inc()
		if j.manual == "" && !j.paid.IsZero() {
			m.delivery.Observe(time.Since(j.paid).Seconds())
		}
	case outcome == "dead" && drop == whyDisabled:
		m.ended.WithLabelValues("dead_disabled").Inc()
	case outcome == "dead" && drop == whyRemoved:
		m.ended.WithLabelValues("dead_removed").Inc()
	case outcome == "dead":
		m.ended.WithLabelValues("dead").Inc()
	}
	attrs := []any{"delivery", j.id, "appid", j.appid, "host", j.host, "attempt", j.seq, "manual", j.manual != "",
		"status", res.status, "latency_ms", res.latency.Milliseconds(), "outcome", outcome}
	reason := res.err
	if res.detail != "" {
		reason = res.detail
	}
	switch {
	case res.ack || drop != "":
		e.log.Debug("event attempt", append(attrs, "reason", reason)...)
	case outcome == "dead":
		e.log.Warn("event delivery dead-lettered after its last attempt", append(attrs, "reason", reason)...)
	default:
		e.log.Warn("event attempt failed", append(attrs, "reason", reason)...)
	}
}
