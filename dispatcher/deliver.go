package dispatcher

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/paygate/gateway/schema"
)

// slots are this process's attempt limits: Concurrency overall and PerHost
// per destination. Only the delivery loop takes slots; attempts give them back.
type slots struct {
	mu      sync.Mutex
	max     int
	perHost int
	total   int
	hosts   map[string]int
}

func newSlots(max, perHost int) *slots {
	return &slots{max: max, perHost: perHost, hosts: map[string]int{}}
}

// free is how many attempts may start now, and for each host with attempts
// in flight how many more it may take.
func (s *slots) free() (int, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	busy := make(map[string]int, len(s.hosts))
	for h, n := range s.hosts {
		busy[h] = max(s.perHost-n, 0)
	}
	return s.max - s.total, busy
}

func (s *slots) take(host string) {
	s.mu.Lock()
	s.total++
	s.hosts[host]++
	s.mu.Unlock()
}

func (s *slots) put(host string) {
	s.mu.Lock()
	s.total--
	if s.hosts[host]--; s.hosts[host] <= 0 {
		delete(s.hosts, host)
	}
	s.mu.Unlock()
}

// deliver claims due deliveries whenever slots are free, on every wake-up
// (a slot freed, work scheduled here) or every Poll (work scheduled by other
// processes, retries falling due). It returns once ctx has ended and every
// attempt it started is recorded.
func (d *Dispatcher) deliver(ctx context.Context) {
	var inflight sync.WaitGroup
	defer inflight.Wait()
	t := time.NewTicker(d.cfg.Poll)
	defer t.Stop()
	var pause backoff
	for first := 0; ; first++ {
		if err := d.claimRound(ctx, &inflight, first); err != nil {
			if ctx.Err() != nil {
				return
			}
			d.redisError("claim webhooks", err)
			pause.wait(ctx)
		} else {
			pause.reset()
		}
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-t.C:
		}
	}
}

// dueSlack widens "due now" when looking for shards with work, so that a
// process whose clock is a little behind Redis's still finds it at once.
const dueSlack = 250 * time.Millisecond

// claimRound fills the free slots from the shards that have work due, in
// one pipeline. Slots are shared out exactly among those shards, the total
// and each host's, so the round cannot take more than the limits allow; it
// starts at a rotating shard so that none is always served last (or left
// out when there are fewer free slots than shards with work).
func (d *Dispatcher) claimRound(ctx context.Context, inflight *sync.WaitGroup, first int) error {
	if free, _ := d.slots.free(); free <= 0 {
		return nil
	}
	due, err := d.store.dueShards(ctx, d.cfg.Now.Now().Add(dueSlack))
	if err != nil {
		return err
	}
	free, busy := d.slots.free()
	shards := schema.AllShards()
	var order []schema.Shard
	for i := range shards {
		if n := (first + i) % len(shards); due[n] {
			order = append(order, shards[n])
		}
	}
	if len(order) > free {
		order = order[:free]
	}
	if len(order) == 0 {
		return nil
	}
	asks := make([]claimAsk, len(order))
	for i, sh := range order {
		a := claimAsk{shard: sh, want: share(free, len(order), i), perHost: share(d.cfg.PerHost, len(order), i),
			busy: make(map[string]int, len(busy))}
		for h, left := range busy {
			a.busy[h] = share(left, len(order), i)
		}
		asks[i] = a
	}
	jobs, err := d.store.claimAll(ctx, asks, d.tokenPrefix())
	for _, j := range jobs {
		d.slots.take(j.host)
		inflight.Go(func() { d.work(ctx, j) })
	}
	return err
}

// share is part i of n of total, the first total%n parts one larger.
func share(total, n, i int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// runLength bounds how many deliveries one slot makes in a row from the
// queue of its host before giving the slot back to a claim round: long
// enough to save claim rounds under a backlog, short enough that hosts
// waiting for a slot get one within a few dozen attempts.
const runLength = 32

// work makes the claimed attempt and, while the host's queue has more due
// and the run is not over, the next ones its records claimed.
func (d *Dispatcher) work(ctx context.Context, j job) {
	defer d.poke()
	defer d.slots.put(j.host)
	d.m.inflight.Inc()
	defer d.m.inflight.Dec()
	for n := 1; ; n++ {
		next := d.attempt(ctx, j, n < runLength && ctx.Err() == nil)
		if next == nil {
			return
		}
		j = *next
	}
}

// attempt makes one claimed attempt and records it; with more, the record
// also claims the host queue's next due delivery, returned for this slot.
// Its deadline runs from the claim, so it always ends before the lease
// another process would wait out; it is not cut short by ctx, so that a
// graceful stop records it.
func (d *Dispatcher) attempt(ctx context.Context, j job, more bool) *job {
	if j.event {
		return d.attemptEvent(ctx, j, more)
	}
	actx, cancel := context.WithDeadline(context.WithoutCancel(ctx), j.claimed.Add(d.cfg.Timeout))
	started := time.Now()
	res := d.send(actx, j)
	cancel()
	rec := schema.WebhookAttempt{
		At: schema.WireTime(started), Attempt: j.seq, Manual: j.manual != "", Status: res.status,
		Error: res.err, Body: keptBody(res.body), LatencyMs: res.latency.Milliseconds(), Success: res.ack,
	}
	outcome, next := d.recordAttempt(ctx, j, res.ack, rec, more)
	d.observe(j, res, outcome)
	return next
}

// send signs the callback with the merchant's key and webhook secrets of
// this moment (MD5 sign in the body, HMAC in the headers) and posts it.
func (d *Dispatcher) send(ctx context.Context, j job) result {
	if j.broken != "" {
		return result{kind: "internal", err: "internal error: the stored callback cannot be read", detail: j.broken}
	}
	key, err := d.keys.APIKey(ctx, j.appid)
	if err != nil {
		return result{kind: "internal", err: "cannot sign: " + err.Error()}
	}
	if isEpayForm(j.form) {
		return sendEpay(ctx, d.client, j, key, d.cfg.Timeout)
	}
	body, err := signForm(j.form, key)
	if err != nil {
		return result{kind: "internal", err: err.Error()}
	}
	secrets, err := d.keys.WebhookSecrets(ctx, j.appid)
	if err != nil {
		return result{kind: "internal", err: "cannot sign: " + err.Error()}
	}
	h, err := signModern(EventID(j.id), d.cfg.Now.Now(), body, secrets)
	if err != nil {
		return result{kind: "internal", err: "cannot sign: " + err.Error()}
	}
	return post(ctx, d.client, j.url, body, h, d.cfg.Timeout)
}

// nextDelay is the jittered wait before the next automatic attempt, or -1
// when the schedule is used up (or the attempt was a one-off resend).
func (d *Dispatcher) nextDelay(j job) time.Duration {
	if j.manual == StateDead || j.manual == StateDelivered || j.made >= len(d.cfg.Schedule) {
		return -1
	}
	return jitter(d.cfg.Schedule[j.made], d.cfg.Jitter)
}

// jitter spreads retries by ±f so that merchants whose endpoint came back
// are not hit by every pending retry at once.
func jitter(base time.Duration, f float64) time.Duration {
	return time.Duration(float64(base) * (1 + f*(2*rand.Float64()-1)))
}

// recordAttempt stores the outcome, retrying briefly: if it cannot, the
// lease runs out and the attempt is made again (at least once, never lost).
func (d *Dispatcher) recordAttempt(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, more bool) (string, *job) {
	next := d.nextDelay(j)
	var pause backoff
	for try := 0; ; try++ {
		prefix := ""
		if more && try == 0 {
			prefix = d.tokenPrefix()
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		out, nj, err := d.store.record(rctx, j, ack, rec, next, prefix)
		cancel()
		if err == nil {
			return out, nj
		}
		d.redisError("record webhook attempt", err)
		if try == 2 {
			d.log.Error("webhook attempt not recorded; it will be made again when its lease ends",
				"payment_id", j.id, "attempt", j.seq, "acknowledged", ack, "err", err)
			return "unrecorded", nil
		}
		pause.wait(context.WithoutCancel(ctx))
	}
}

// observe counts and logs one attempt.
func (d *Dispatcher) observe(j job, res result, outcome string) {
	d.m.attempts.WithLabelValues(res.kind).Inc()
	d.m.attemptS.Observe(res.latency.Seconds())
	switch outcome {
	case "retry":
		d.m.retries.Inc()
	case "dead":
		d.m.dead.Inc()
	case "delivered":
		if (j.manual == "" || j.manual == StatePending) && !j.paid.IsZero() {
			d.m.delivery.Observe(time.Since(j.paid).Seconds())
		}
	}
	reason := res.err
	if res.detail != "" {
		reason = res.detail
	}
	attrs := []any{"payment_id", j.id, "appid", j.appid, "host", j.host, "attempt", j.seq, "manual", j.manual != "",
		"status", res.status, "latency_ms", res.latency.Milliseconds(), "outcome", outcome}
	switch {
	case res.ack:
		// Debug: at thousands a second, one line each would cost more
		// than the delivery; the attempt log and metrics keep them.
		d.log.Debug("webhook delivered", attrs...)
	case outcome == "dead":
		d.log.Warn("webhook dead-lettered after its last attempt", append(attrs, "reason", reason)...)
	default:
		d.log.Warn("webhook attempt failed", append(attrs, "reason", reason)...)
	}
}

// backoff spaces out retries after Redis errors: 100ms doubling to 5s.
type backoff struct{ d time.Duration }

func (b *backoff) wait(ctx context.Context) {
	b.d = min(max(2*b.d, 100*time.Millisecond), 5*time.Second)
	select {
	case <-ctx.Done():
	case <-time.After(b.d):
	}
}

func (b *backoff) reset() { b.d = 0 }
