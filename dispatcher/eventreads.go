package dispatcher

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// notFound is the one answer for a delivery or endpoint that is not the
// asking merchant's: the same as for one that does not exist.
func notFound(what string) error { return platform.Errorf(platform.KindNotFound, "no such %s", what) }

// Delivery is delivery id of merchant appid with its attempts; 404 when it
// is another merchant's or none.
func (e *EventDeliveries) Delivery(ctx context.Context, appid, id string) (events.Delivery, error) {
	if _, _, ok := splitDelivery(id); !ok {
		return events.Delivery{}, notFound("delivery")
	}
	ds, err := e.read(ctx, appid, []string{id})
	if err != nil {
		return events.Delivery{}, err
	}
	if len(ds) == 0 {
		return events.Delivery{}, notFound("delivery")
	}
	return ds[0], nil
}

// Deliveries is endpoint epID's deliveries, newest first, created before
// the cursor (ms; 0 for the newest), at most n (1 to 100), and the cursor
// of the next page (0 at the end). 404 for an endpoint that is not appid's
// (one removed keeps its history while any is left).
func (e *EventDeliveries) Deliveries(ctx context.Context, appid, epID string, before int64, n int) ([]events.Delivery, int64, error) {
	n = min(max(n, 1), 100)
	max := "+inf"
	if before > 0 {
		max = "(" + strconv.FormatInt(before, 10)
	}
	zs, err := e.rdb.ZRevRangeByScoreWithScores(ctx, schema.EventIndexKey(appid, epID),
		&redis.ZRangeBy{Min: "-inf", Max: max, Count: int64(n) + 1}).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("read endpoint deliveries: %w", err)
	}
	if len(zs) == 0 {
		if _, err := e.eps.Get(ctx, appid, epID); err != nil {
			return nil, 0, err
		}
		return nil, 0, nil
	}
	var next int64
	if len(zs) > n {
		// The next page starts below this one's last time: deliveries of
		// the millisecond the page would split go to the next page whole.
		cut := n
		for cut > 1 && zs[cut-1].Score == zs[n].Score {
			cut--
		}
		zs = zs[:cut]
		next = int64(zs[cut-1].Score)
	}
	ids := make([]string, len(zs))
	for i, z := range zs {
		ids[i], _ = z.Member.(string)
	}
	ds, err := e.read(ctx, appid, ids)
	return ds, next, err
}

// read is the deliveries ids of merchant appid, in that order, in one round
// trip; one that is gone or another merchant's is left out.
func (e *EventDeliveries) read(ctx context.Context, appid string, ids []string) ([]events.Delivery, error) {
	sh := schema.HomeShard(appid)
	hs := make([]*redis.MapStringStringCmd, len(ids))
	logs := make([]*redis.StringSliceCmd, len(ids))
	_, err := e.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			hs[i] = p.HGetAll(ctx, schema.EventDeliveryKey(sh, id))
			logs[i] = p.LRange(ctx, schema.EventLogKey(sh, id), 0, -1)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read endpoint deliveries: %w", err)
	}
	out := make([]events.Delivery, 0, len(ids))
	for i, id := range ids {
		h := hs[i].Val()
		if len(h) == 0 || h["appid"] != appid {
			continue
		}
		d, err := deliveryView(id, h, logs[i].Val())
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// deliveryView is a stored delivery as the doors show it.
func deliveryView(id string, h map[string]string, log []string) (events.Delivery, error) {
	evid, epid, _ := splitDelivery(id)
	d := events.Delivery{ID: id, EventID: evid, EndpointID: epid, Type: events.Type(h["type"]), State: h["st"],
		Body: h["p"], Reason: h["why"], Resend: h["man"]}
	if ms, err := strconv.ParseInt(h["paid"], 10, 64); err == nil {
		d.Created = time.UnixMilli(ms).UTC()
	}
	if ms, err := strconv.ParseInt(h["due"], 10, 64); err == nil && d.State == events.Pending {
		d.NextAt = time.UnixMilli(ms).UTC()
	}
	if first, ok := h["a1"]; ok {
		log = append([]string{first}, log...)
	}
	recs, err := schema.DecodeWebhookLog(id, log)
	if err != nil {
		return events.Delivery{}, err
	}
	for _, r := range recs {
		at, _ := time.Parse(time.RFC3339Nano, r.At)
		d.Attempts = append(d.Attempts, events.Attempt{At: at, Status: r.Status, Outcome: outcomeWords(r),
			Answer: r.Body, Duration: time.Duration(r.LatencyMs) * time.Millisecond})
	}
	return d, nil
}

// outcomeWords is an attempt's outcome in the words of the attempt log:
// "Answered 200" (or whatever status came), else why no answer came as
// the dispatcher phrases it ("connection refused", "timeout after 10s").
func outcomeWords(r schema.WebhookAttempt) string {
	if r.Status != 0 && (r.Success || r.Error == "" || r.Error == "HTTP "+strconv.Itoa(r.Status)) {
		return "Answered " + strconv.Itoa(r.Status)
	}
	if r.Error == "" {
		return "Failed"
	}
	return r.Error
}
