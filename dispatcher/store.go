package dispatcher

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
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
	rdb      redis.UniversalClient
	cfg      Config
	schedule *redis.Script
	claim    *redis.Script
	finish   *redis.Script
	resend   *redis.Script
	// resendAudited is resend appending the console's audit entry to the
	// shard's audit stream in the same step (audit.Script).
	resendAudited *redis.Script
	finishes      *platform.Batcher // runs of finish and of the events' finish
	events        eventScripts
}

func newStore(rdb redis.UniversalClient, cfg Config) *store {
	script := func(body string) *redis.Script { return redis.NewScript(libLua + "\n" + body) }
	s := &store{rdb: rdb, cfg: cfg,
		schedule: script(scheduleLua), claim: script(claimLua), finish: script(finishLua),
		resend:        script("local function audit_hook() end\n" + resendLua),
		resendAudited: audit.Script(libLua + "\nlocal function audit_hook() gw_audit(KEYS[5]) end\n" + resendLua),
		events:        newEventScripts()}
	s.finishes = platform.NewBatcher(rdb, platform.BatcherConfig{Lanes: finishLanes})
	return s
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
	calls := make([]platform.ScriptCall, 0, len(ds))
	for i, d := range ds {
		host := hostOf(d.url)
		calls = append(calls, platform.ScriptCall{
			Keys: []string{schema.WebhookKey(d.shard, d.id), schema.WebhookQueueKey(d.shard, host),
				schema.WebhookHostsKey(d.shard), schema.OrderKey(d.shard, d.id), schema.WebhookMerchantKey(d.shard, d.appid),
				schema.WebhookMerchantAllKey(d.shard, d.appid)},
			Args: []any{d.id, host, d.url, d.appid, encodeCallback(d.params), d.paid.UnixMilli(),
				s.cfg.Retention.Milliseconds(), (s.cfg.lease() + pendingFloor).Milliseconds(), s.cfg.HistoryCap},
		})
		todo = append(todo, i)
	}
	for n, cmd := range platform.EvalPipelined(ctx, s.rdb, s.schedule, calls) {
		i := todo[n]
		v, err := cmd.Int()
		if err != nil {
			errs[i] = fmt.Errorf("schedule webhook of %s: %w", ds[i].id, err)
		}
		added[i] = v == 1
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
	form    string // callback parameters, form-encoded in key order
	made    int    // automatic attempts made before this one
	manual  string // "", or the state a manual resend came from
	seq     int    // this attempt's number in the order's log
	paid    time.Time
	claimed time.Time
	broken  string // why the stored delivery cannot be sent, if it cannot
	event   bool   // an endpoint delivery: form is the JSON body, paid its creation
	ep      string // an endpoint delivery's endpoint as stored at the claim; "" when removed
}

// claimAsk is what one shard's claim may take: want deliveries, perHost of
// any host not in busy, and of each host in busy that many.
type claimAsk struct {
	shard   schema.Shard
	want    int
	perHost int
	busy    map[string]int
}

// claimAll leases due deliveries of several shards in one pipeline: a round
// costs one round trip and one fsync however many shards have work.
func (s *store) claimAll(ctx context.Context, asks []claimAsk, tokenPrefix string) ([]job, error) {
	calls := make([]platform.ScriptCall, len(asks))
	for i, a := range asks {
		args := []any{schema.WebhookKey(a.shard, ""), schema.WebhookQueueKey(a.shard, ""), schema.WebhookLogKey(a.shard, ""),
			s.cfg.lease().Milliseconds(), a.want, a.perHost, tokenPrefix, a.want + len(a.busy) + 16}
		for h, free := range a.busy {
			args = append(args, h, free)
		}
		calls[i] = platform.ScriptCall{Keys: []string{schema.WebhookHostsKey(a.shard)}, Args: args}
	}
	// Not cut short by the caller's end: a claim the server made but whose
	// answer we dropped would strand its deliveries until their leases end.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	cmds := platform.EvalPipelined(cctx, s.rdb, s.claim, calls)
	claimed := time.Now()
	var jobs []job
	var errs []error
	for i, cmd := range cmds {
		raw, err := cmd.Slice()
		if err != nil {
			errs = append(errs, fmt.Errorf("claim webhooks on shard %d: %w", asks[i].shard, err))
			continue
		}
		for k := 0; k+jobFields <= len(raw); k += jobFields {
			j := decodeJob(asks[i].shard, raw[k:k+jobFields])
			j.claimed = claimed
			jobs = append(jobs, j)
		}
	}
	return jobs, errors.Join(errs...)
}

// jobFields is how many values a script answers per claimed delivery.
const jobFields = 11

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
	if isEventDelivery(j.id) {
		j.event, j.form, j.ep = true, str(5), str(10)
		return j
	}
	form, err := storedForm(str(5))
	if err != nil {
		j.broken = fmt.Sprintf("stored callback parameters cannot be read: %v", err)
	}
	j.form = form
	return j
}

// requeueAudited asks for one more attempt now (a manual resend) of
// paymentID's paid webhook, or with a refundID of that refund's, appending
// e, when not nil, to the shard's audit stream in the same script. With an
// appid, only a delivery of that merchant's is found, and the script checks
// it: another merchant's, like a refund of another order, is answered like
// a missing one and leaves no entry. e's merchant, when empty, becomes the
// delivery's.
func (s *store) requeueAudited(ctx context.Context, appid, paymentID, refundID string, e *audit.Entry) (string, error) {
	shard, id, ok := locate(paymentID, refundID)
	if !ok {
		return "", ErrNoDelivery
	}
	// The host, the merchant and a refund's order never change once
	// scheduled; they name the keys. The script checks the merchant again.
	f, err := s.rdb.HMGet(ctx, schema.WebhookKey(shard, id), "host", "appid", "p").Result()
	if err != nil {
		return "", fmt.Errorf("read webhook of %s: %w", id, err)
	}
	host, _ := f[0].(string)
	owner, _ := f[1].(string)
	stored, _ := f[2].(string)
	if appid == "" {
		appid = owner
	}
	if host == "" || appid == "" || (refundID != "" && !ofOrder(stored, paymentID)) {
		return "", ErrNoDelivery
	}
	keys := []string{schema.WebhookKey(shard, id), schema.WebhookQueueKey(shard, host), schema.WebhookHostsKey(shard),
		schema.WebhookMerchantKey(shard, appid)}
	script, args := s.resend, []any{id, host, appid}
	if e != nil {
		withOwner := *e
		if withOwner.AppID == "" {
			withOwner.AppID = owner
		}
		full, err := audit.ScriptArgs(args, withOwner)
		if err != nil {
			return "", err
		}
		script, args, keys = s.resendAudited, full, append(keys, schema.AuditKey(shard.Tag()))
	}
	out, err := script.Run(ctx, s.rdb, keys, args...).Text()
	if err != nil {
		return "", fmt.Errorf("resend webhook of %s: %w", id, err)
	}
	if out == "none" {
		return "", ErrNoDelivery
	}
	return out, nil
}
