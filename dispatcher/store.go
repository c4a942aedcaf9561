package dispatcher

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/lib.lua
	libLua string
	//go:embed scripts/schedule.lua
	scheduleLua string
	//go:embed scripts/claim.lua
	claimLua string
	//go:embed scripts/finish.lua
	finishLua string
	//go:embed scripts/resend.lua
	resendLua string
)

// ErrNoDelivery is a log or resend asked for an order that has no webhook
// delivery in Redis: not paid, paid without a notify_url, not consumed yet,
// or expired with its order.
var ErrNoDelivery = errors.New("no webhook delivery for this order")

// store is the delivery state in Redis. Every change is one script on the
// order's shard, so a claim, an attempt's outcome and a resend never
// interleave halfway.
type store struct {
	rdb      *redis.Client
	cfg      Config
	schedule *redis.Script
	claim    *redis.Script
	finish   *redis.Script
	resend   *redis.Script
}

func newStore(rdb *redis.Client, cfg Config) *store {
	script := func(body string) *redis.Script { return redis.NewScript(libLua + "\n" + body) }
	return &store{rdb: rdb, cfg: cfg,
		schedule: script(scheduleLua), claim: script(claimLua), finish: script(finishLua), resend: script(resendLua)}
}

// pendingFloor keeps a pending delivery's state at least this long past its
// next due time, even when its order expires sooner.
const pendingFloor = time.Hour

// delivery is what a paid event schedules.
type delivery struct {
	shard  schema.Shard
	id     string
	url    string
	appid  string
	params schema.Params
	paid   time.Time
}

// addAll schedules the first attempt of each delivery unless its order
// already has one, in one pipeline: a backlog of paid events is scheduled at
// the speed of Redis, not of round trips. added[i] and errs[i] are the
// outcome of ds[i]; a failed one is safe to try again.
func (s *store) addAll(ctx context.Context, ds []delivery) (added []bool, errs []error) {
	added, errs = make([]bool, len(ds)), make([]error, len(ds))
	todo := make([]int, 0, len(ds))
	args := make([][]any, len(ds))
	for i, d := range ds {
		p, err := json.Marshal(d.params)
		if err != nil {
			errs[i] = fmt.Errorf("encode callback of %s: %w", d.id, err)
			continue
		}
		args[i] = []any{d.id, hostOf(d.url), d.url, d.appid, p, d.paid.UnixMilli(),
			s.cfg.Retention.Milliseconds(), (s.cfg.lease() + pendingFloor).Milliseconds()}
		todo = append(todo, i)
	}
	// EVALSHA in a pipeline cannot fall back to EVAL by itself: after a
	// NOSCRIPT (Redis restarted), load the script and run the rest again.
	for round := 0; round < 2 && len(todo) > 0; round++ {
		cmds := make([]*redis.Cmd, len(todo))
		_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for n, i := range todo {
				d := ds[i]
				host := hostOf(d.url)
				keys := []string{schema.WebhookKey(d.shard, d.id), schema.WebhookQueueKey(d.shard, host),
					schema.WebhookHostsKey(d.shard), schema.OrderKey(d.shard, d.id)}
				cmds[n] = s.schedule.EvalSha(ctx, p, keys, args[i]...)
			}
			return nil
		})
		var again []int
		for n, i := range todo {
			v, err := cmds[n].Int()
			if redis.HasErrorPrefix(err, "NOSCRIPT") && round == 0 {
				again = append(again, i)
				continue
			}
			if err != nil {
				errs[i] = fmt.Errorf("schedule webhook of %s: %w", ds[i].id, err)
			}
			added[i] = v == 1
		}
		if len(again) > 0 {
			if err := s.schedule.Load(ctx, s.rdb).Err(); err != nil {
				for _, i := range again {
					errs[i] = fmt.Errorf("load schedule script: %w", err)
				}
				break
			}
		}
		todo = again
	}
	return added, errs
}

// dueShards reports which shards have a host with work due by until, in one
// round trip: a claim round then calls only on those, instead of walking
// all shards one round trip after another. until is this process's clock
// plus a slack, which covers a clock behind Redis's; the claim itself
// decides by Redis's clock.
func (s *store) dueShards(ctx context.Context, until time.Time) ([]bool, error) {
	shards := schema.AllShards()
	cmds := make([]*redis.IntCmd, len(shards))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		max := strconv.FormatInt(until.UnixMilli(), 10)
		for i, sh := range shards {
			cmds[i] = p.ZCount(ctx, schema.WebhookHostsKey(sh), "-inf", max)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for due webhooks: %w", err)
	}
	due := make([]bool, len(shards))
	for i, c := range cmds {
		due[i] = c.Val() > 0
	}
	return due, nil
}

// job is one claimed attempt.
type job struct {
	shard   schema.Shard
	id      string
	token   string
	host    string
	url     string
	appid   string
	params  schema.Params
	made    int    // automatic attempts made before this one
	manual  string // "", or the state a manual resend came from
	seq     int    // this attempt's number in the order's log
	paid    time.Time
	claimed time.Time
	broken  string // why the stored delivery cannot be sent, if it cannot
}

// claimJobs leases up to want due deliveries of one shard; busy maps the
// hosts this process already calls to the slots they have left.
func (s *store) claimJobs(ctx context.Context, shard schema.Shard, want int, busy map[string]int, tokenPrefix string) ([]job, error) {
	args := []any{schema.WebhookKey(shard, ""), schema.WebhookQueueKey(shard, ""), schema.WebhookLogKey(shard, ""),
		s.cfg.lease().Milliseconds(), want, s.cfg.PerHost, tokenPrefix, want + len(busy) + 16}
	for h, free := range busy {
		args = append(args, h, free)
	}
	// Not cut short by the caller's end: a claim the server made but whose
	// answer we dropped would strand its deliveries until their leases end.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	raw, err := s.claim.Run(cctx, s.rdb, []string{schema.WebhookHostsKey(shard)}, args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("claim webhooks on shard %d: %w", shard, err)
	}
	claimed := time.Now()
	const width = 10
	jobs := make([]job, 0, len(raw)/width)
	for i := 0; i+width <= len(raw); i += width {
		j := decodeJob(shard, raw[i:i+width])
		j.claimed = claimed
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// decodeJob reads one claimed delivery. One whose stored callback cannot be
// read is still returned, marked broken: its attempt fails and is recorded,
// so it runs down its schedule to the dead letters instead of being claimed
// again after every lease.
func decodeJob(shard schema.Shard, v []any) job {
	str := func(i int) string {
		switch x := v[i].(type) {
		case string:
			return x
		case int64:
			return strconv.FormatInt(x, 10)
		}
		return ""
	}
	num := func(i int) int { n, _ := strconv.Atoi(str(i)); return n }
	j := job{shard: shard, id: str(0), token: str(1), host: str(2), url: str(3), appid: str(4),
		made: num(6), manual: str(7), seq: num(8)}
	if ms, err := strconv.ParseInt(str(9), 10, 64); err == nil && ms > 0 {
		j.paid = time.UnixMilli(ms)
	}
	if err := json.Unmarshal([]byte(str(5)), &j.params); err != nil {
		j.broken = fmt.Sprintf("stored callback parameters cannot be read: %v", err)
	}
	return j
}

// record stores an attempt and moves its delivery on; next is the delay
// before the next automatic attempt, or negative when none is left.
func (s *store) record(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, next time.Duration) (string, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return "", fmt.Errorf("encode attempt of %s: %w", j.id, err)
	}
	keys := []string{schema.WebhookKey(j.shard, j.id), schema.WebhookLogKey(j.shard, j.id),
		schema.WebhookQueueKey(j.shard, j.host), schema.WebhookHostsKey(j.shard),
		schema.WebhookDeadKey(j.shard), schema.OrderKey(j.shard, j.id)}
	nextMS := int64(-1)
	if next >= 0 {
		nextMS = next.Milliseconds()
	}
	ackFlag := "0"
	if ack {
		ackFlag = "1"
	}
	out, err := s.finish.Run(ctx, s.rdb, keys, j.id, j.host, j.token, ackFlag, body, nextMS,
		s.cfg.Retention.Milliseconds(), s.cfg.LogCap, (s.cfg.lease() + pendingFloor).Milliseconds()).Text()
	if err != nil {
		return "", fmt.Errorf("record webhook attempt of %s: %w", j.id, err)
	}
	return out, nil
}

// requeue asks for one more attempt now (a manual resend).
func (s *store) requeue(ctx context.Context, id string) (string, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return "", ErrNoDelivery
	}
	host, err := s.rdb.HGet(ctx, schema.WebhookKey(shard, id), "host").Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNoDelivery
	}
	if err != nil {
		return "", fmt.Errorf("read webhook of %s: %w", id, err)
	}
	keys := []string{schema.WebhookKey(shard, id), schema.WebhookQueueKey(shard, host), schema.WebhookHostsKey(shard)}
	out, err := s.resend.Run(ctx, s.rdb, keys, id, host).Text()
	if err != nil {
		return "", fmt.Errorf("resend webhook of %s: %w", id, err)
	}
	if out == "none" {
		return "", ErrNoDelivery
	}
	return out, nil
}
