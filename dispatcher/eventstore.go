package dispatcher

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/eventlib.lua
	eventLibLua string
	//go:embed scripts/eventschedule.lua
	eventScheduleLua string
	//go:embed scripts/eventfinish.lua
	eventFinishLua string
	//go:embed scripts/eventresend.lua
	eventResendLua string
	//go:embed scripts/eventreplay.lua
	eventReplayLua string
	//go:embed scripts/eventdrop.lua
	eventDropLua string
)

// eventScripts are the endpoint-event siblings of the paid webhook's
// scripts. They share lib.lua (the clock, reindex, claim_one), so an event
// delivery is claimed by the same claim script, from the same host queues,
// as a paid one.
type eventScripts struct {
	schedule, finish, resend, replay, drop *redis.Script
}

func newEventScripts() eventScripts {
	script := func(body string) *redis.Script {
		return redis.NewScript(libLua + "\n" + eventLibLua + "\n" + body)
	}
	return eventScripts{schedule: script(eventScheduleLua), finish: script(eventFinishLua),
		resend: script(eventResendLua), replay: script(eventReplayLua), drop: script(eventDropLua)}
}

// eventPrefix starts every endpoint delivery's id (events.ID's form), which
// is how a claimed job is told from a paid or refund webhook.
const eventPrefix = "evt_"

// isEventDelivery reports whether a claimed id is an endpoint delivery.
func isEventDelivery(id string) bool { return strings.HasPrefix(id, eventPrefix) }

// DeliveryID is the id of event eventID's delivery to endpoint epID.
func DeliveryID(eventID, epID string) string { return eventID + "." + epID }

// splitDelivery is a delivery id's event and endpoint.
func splitDelivery(id string) (eventID, epID string, ok bool) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 || !isEventDelivery(id) {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// ScheduleEvent schedules ev, about object (the order, payout, destination
// or balance it concerns: deliveries about one object reach one endpoint in
// the order they were scheduled), to each of eps, endpoints of appid.
// Idempotent: a delivery that exists is not scheduled again, so a fan-out
// retried after a crash sends nothing twice.
func (e *EventDeliveries) ScheduleEvent(ctx context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) error {
	n, err := e.schedule(ctx, appid, ev, object, eps)
	if n > 0 {
		e.poke()
	}
	return err
}

// schedule is ScheduleEvent answering how many deliveries were new.
func (e *EventDeliveries) schedule(ctx context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) (int, error) {
	if len(eps) == 0 {
		return 0, nil
	}
	body, err := ev.Body()
	if err != nil {
		return 0, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	if object == "" {
		object = ev.ID
	}
	sh := schema.HomeShard(appid)
	calls := make([]platform.ScriptCall, 0, len(eps))
	for _, ep := range eps {
		if ep.AppID != appid {
			return 0, fmt.Errorf("schedule event %s: endpoint %s is not merchant %s's", ev.ID, ep.ID, appid)
		}
		id, host := DeliveryID(ev.ID, ep.ID), hostOf(ep.URL)
		calls = append(calls, platform.ScriptCall{
			Keys: []string{schema.EventDeliveryKey(sh, id), schema.WebhookQueueKey(sh, host), schema.WebhookHostsKey(sh),
				schema.EventFIFOKey(sh, ep.ID, object), schema.EventHeadsKey(sh, ep.ID), schema.EventIndexKey(appid, ep.ID)},
			Args: []any{id, host, ep.URL, appid, body, 0, ep.ID, object, string(ev.Type),
				e.cfg.EventRetention.Milliseconds(), e.cfg.EventHistoryCap, schema.EventDeliveryKey(sh, ""), schema.EventLogKey(sh, ""),
				schema.WebhookQueueKey(sh, "")},
		})
	}
	added := 0
	var errs []error
	for i, cmd := range platform.EvalPipelined(ctx, e.rdb, e.store.events.schedule, calls) {
		n, err := cmd.Int()
		if err != nil {
			errs = append(errs, fmt.Errorf("schedule event %s to %s: %w", ev.ID, eps[i].ID, err))
		}
		added += n
	}
	if added > 0 {
		e.m.scheduled.Add(float64(added))
	}
	return added, errors.Join(errs...)
}

// recordEvent stores an endpoint delivery's attempt and moves it on (see
// eventfinish.lua); drop, when set, dead-letters it at once with that
// reason; failures before changed (the endpoint's last change) do not count
// toward disabling it. It answers the outcome, whether the endpoint has now failed long
// enough to be disabled, and the next job its record claimed.
func (s *store) recordEvent(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, next time.Duration, drop, tokenPrefix string, disableAfter time.Duration, changed time.Time) (string, bool, *job, error) {
	c, err := s.recordEventCall(j, ack, rec, next, drop, tokenPrefix, disableAfter, changed)
	if err != nil {
		return "", false, nil, err
	}
	raw, err := s.finishes.Script(ctx, s.events.finish, c.Keys, c.Args...).Slice()
	if err != nil {
		return "", false, nil, fmt.Errorf("record event attempt of %s: %w", j.id, err)
	}
	return decodeRecordEvent(j, raw)
}

// recordEventCall is eventfinish.lua's keys and arguments for recordEvent.
func (s *store) recordEventCall(j job, ack bool, rec schema.WebhookAttempt, next time.Duration, drop, tokenPrefix string, disableAfter time.Duration, changed time.Time) (platform.ScriptCall, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return platform.ScriptCall{}, fmt.Errorf("encode attempt of %s: %w", j.id, err)
	}
	_, epid, _ := splitDelivery(j.id)
	keys := []string{schema.EventDeliveryKey(j.shard, j.id), schema.EventLogKey(j.shard, j.id),
		schema.WebhookQueueKey(j.shard, j.host), schema.WebhookHostsKey(j.shard), schema.EventHealthKey(j.appid)}
	nextMS := int64(-1)
	if next >= 0 {
		nextMS = next.Milliseconds()
	}
	ackFlag := "0"
	if ack {
		ackFlag = "1"
	}
	args := []any{j.id, j.host, j.token, ackFlag, body, nextMS, s.cfg.EventRetention.Milliseconds(), s.cfg.LogCap, drop,
		schema.WebhookKey(j.shard, ""), schema.WebhookLogKey(j.shard, ""), s.cfg.lease().Milliseconds(), tokenPrefix,
		disableAfter.Milliseconds(), epid, schema.EventFIFOPrefix(j.shard), schema.WebhookQueueKey(j.shard, ""),
		schema.EventHeadsKey(j.shard, ""), max(changed.UnixMilli(), 0)}
	return platform.ScriptCall{Keys: keys, Args: args}, nil
}

// decodeRecordEvent reads eventfinish.lua's answer for attempt j.
func decodeRecordEvent(j job, raw []any) (string, bool, *job, error) {
	if len(raw) < 2 {
		return "", false, nil, fmt.Errorf("record event attempt of %s: short answer", j.id)
	}
	out, _ := raw[0].(string)
	disable, _ := raw[1].(string)
	if len(raw) < 2+jobFields {
		return out, disable == "1", nil, nil
	}
	nj := decodeJob(j.shard, raw[2:2+jobFields])
	nj.claimed = time.Now()
	return out, disable == "1", &nj, nil
}
