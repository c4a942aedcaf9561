package dispatcher

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// eventFinishMax bounds the outcomes one eventfinish.lua call records:
// the slots a process gives one host (PerHost) fit many times over, and a
// call stays a short turn of Redis.
const eventFinishMax = 32

// eventOutcome is one attempt's outcome waiting to be recorded, and then
// its answer.
type eventOutcome struct {
	j                   job
	ack                 bool
	rec                 []byte
	next                int64 // ms before the next attempt; -1 none
	drop, prefix        string
	changed             int64 // ms
	outcome             string
	disable             bool
	nj                  *job
	err                 error
	done                chan struct{}
	lead                chan []*eventOutcome // the batch this caller is to send
	shard               schema.Shard
	epid, logKey        string
	deliveryKey, health string
}

// finishGroup is what one eventfinish.lua call covers: one shard, so every
// key of the call shares the shard's hash tag.
type finishGroup = schema.Shard

// eventFinisher records endpoint attempts of one shard together: a slot
// finishing while its shard's previous call is in flight waits for it and
// goes in the next one, with every other outcome of that shard that came
// meanwhile. Part of a call's cost is not per delivery (the call, the
// clock, and per host queue the removals, the claim of the next due
// deliveries, the hosts index), so under a backlog it is shared; a lone
// outcome is sent at once. Calls of different shards still share round
// trips (store.finishes). As platform.Batcher, it has no goroutine: the
// caller whose outcome heads a batch sends it.
type eventFinisher struct {
	s      *store
	mu     sync.Mutex
	groups map[finishGroup][]*eventOutcome // waiting; a key present means a call is in flight
}

func newEventFinisher(s *store) *eventFinisher {
	return &eventFinisher{s: s, groups: map[finishGroup][]*eventOutcome{}}
}

// record queues o for its host's next call and waits for its answer.
func (f *eventFinisher) record(ctx context.Context, o *eventOutcome) {
	o.done, o.lead = make(chan struct{}), make(chan []*eventOutcome, 1)
	g := o.shard
	f.mu.Lock()
	waiting, busy := f.groups[g]
	if busy {
		f.groups[g] = append(waiting, o)
		f.mu.Unlock()
	} else {
		f.groups[g] = nil
		f.mu.Unlock()
		f.send(ctx, g, []*eventOutcome{o})
	}
	select {
	case <-o.done:
	case batch := <-o.lead:
		f.send(ctx, g, batch)
	}
}

// send records batch in one call, answers its callers and hands the
// group's next batch to the first of it.
func (f *eventFinisher) send(ctx context.Context, g finishGroup, batch []*eventOutcome) {
	f.s.finishEvents(context.WithoutCancel(ctx), g, batch)
	for _, o := range batch {
		close(o.done)
	}
	f.mu.Lock()
	waiting := f.groups[g]
	if len(waiting) == 0 {
		delete(f.groups, g)
		f.mu.Unlock()
		return
	}
	n := min(len(waiting), eventFinishMax)
	next := waiting[:n:n]
	f.groups[g] = waiting[n:]
	f.mu.Unlock()
	next[0].lead <- next
}

// finishArgs are eventfinish.lua's arguments per outcome.
const finishArgs = 10

// finishEvents runs eventfinish.lua for batch, outcomes of shard g, and
// sets each one's answer.
func (s *store) finishEvents(ctx context.Context, g schema.Shard, batch []*eventOutcome) {
	c := s.finishCall(g, batch)
	raw, err := s.finishes.Script(ctx, s.events.finish, c.Keys, c.Args...).Slice()
	if err == nil {
		err = decodeFinishes(g, raw, batch)
	}
	if err != nil {
		for _, o := range batch {
			o.err = fmt.Errorf("record event attempt of %s: %w", o.j.id, err)
		}
	}
}

// finishCall is eventfinish.lua's keys and arguments for batch.
func (s *store) finishCall(g schema.Shard, batch []*eventOutcome) platform.ScriptCall {
	keys := make([]string, 0, 1+4*len(batch))
	keys = append(keys, schema.WebhookHostsKey(g))
	args := make([]any, 0, 10+finishArgs*len(batch))
	args = append(args, s.cfg.EventRetention.Milliseconds(), s.cfg.LogCap, schema.WebhookKey(g, ""),
		schema.WebhookLogKey(g, ""), s.cfg.lease().Milliseconds(), s.cfg.EndpointDisableAfter.Milliseconds(),
		schema.EventFIFOPrefix(g), schema.WebhookQueueKey(g, ""), schema.EventHeadsKey(g, ""), len(batch))
	for _, o := range batch {
		ack := "0"
		if o.ack {
			ack = "1"
		}
		keys = append(keys, o.deliveryKey, o.logKey, o.health, schema.WebhookQueueKey(g, o.j.host))
		args = append(args, o.j.id, o.j.token, ack, o.rec, o.next, o.drop, o.epid, o.changed, o.prefix, o.j.host)
	}
	return platform.ScriptCall{Keys: keys, Args: args}
}

// decodeFinishes sets each outcome's answer from eventfinish.lua's reply.
func decodeFinishes(shard schema.Shard, raw []any, batch []*eventOutcome) error {
	claimed := time.Now()
	k := 0
	for _, o := range batch {
		if k+3 > len(raw) {
			return fmt.Errorf("short answer")
		}
		o.outcome, _ = raw[k].(string)
		d, _ := raw[k+1].(string)
		o.disable = d == "1"
		more, _ := raw[k+2].(int64)
		k += 3
		if more == 1 {
			if k+jobFields > len(raw) {
				return fmt.Errorf("short answer")
			}
			nj := decodeJob(shard, raw[k:k+jobFields])
			nj.claimed = claimed
			o.nj = &nj
			k += jobFields
		}
	}
	return nil
}

// newEventOutcome is the outcome of attempt j to record: its record, the
// delay before the next attempt (-1 none), why to dead-letter it now (”
// none), the token prefix to claim the next due delivery with (” none).
func newEventOutcome(j job, ack bool, rec schema.WebhookAttempt, next time.Duration, drop, tokenPrefix string,
	changed time.Time) (*eventOutcome, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encode attempt of %s: %w", j.id, err)
	}
	_, epid, _ := splitDelivery(j.id)
	nextMS := int64(-1)
	if next >= 0 {
		nextMS = next.Milliseconds()
	}
	return &eventOutcome{j: j, ack: ack, rec: body, next: nextMS, drop: drop, prefix: tokenPrefix,
		changed: max(changed.UnixMilli(), 0),
		shard:   j.shard, epid: epid, deliveryKey: schema.EventDeliveryKey(j.shard, j.id),
		logKey: schema.EventLogKey(j.shard, j.id), health: schema.EventHealthKey(j.appid)}, nil
}
