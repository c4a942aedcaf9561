package dispatcher

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/paygate/gateway/schema"
)

// Attempt records go to Redis in shared pipelines, finishLanes in flight:
// at thousands of deliveries a second each Redis turn records many attempts
// with one fsync.
const finishLanes = 4

// rateKept is how long an hour's attempt counters live: the day the
// console's success rate covers, and the hour being counted.
const rateKept = 25 * time.Hour

// record stores an attempt and moves its delivery on; next is the delay
// before the next automatic attempt, or negative when none is left. With a
// token prefix it also claims the next due delivery of the same host queue
// and returns it, so the attempt's slot goes straight on to it.
func (s *store) record(ctx context.Context, j job, ack bool, rec schema.WebhookAttempt, next time.Duration, tokenPrefix string) (string, *job, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return "", nil, fmt.Errorf("encode attempt of %s: %w", j.id, err)
	}
	keys := []string{schema.WebhookKey(j.shard, j.id), schema.WebhookLogKey(j.shard, j.id),
		schema.WebhookQueueKey(j.shard, j.host), schema.WebhookHostsKey(j.shard),
		schema.WebhookDeadKey(j.shard), schema.OrderKey(j.shard, j.id), schema.WebhookMerchantKey(j.shard, j.appid),
		schema.WebhookRateKey(j.shard, j.appid, time.Now().Unix()/3600)}
	nextMS := int64(-1)
	if next >= 0 {
		nextMS = next.Milliseconds()
	}
	ackFlag := "0"
	if ack {
		ackFlag = "1"
	}
	args := []any{j.id, j.host, j.token, ackFlag, body, nextMS, s.cfg.Retention.Milliseconds(), s.cfg.LogCap,
		(s.cfg.lease() + pendingFloor).Milliseconds(), schema.WebhookKey(j.shard, ""), schema.WebhookLogKey(j.shard, ""),
		s.cfg.lease().Milliseconds(), tokenPrefix, rateKept.Milliseconds()}
	raw, err := s.finishes.Script(ctx, s.finish, keys, args...).Slice()
	if err != nil {
		return "", nil, fmt.Errorf("record webhook attempt of %s: %w", j.id, err)
	}
	if len(raw) == 0 {
		return "", nil, fmt.Errorf("record webhook attempt of %s: empty answer", j.id)
	}
	out, _ := raw[0].(string)
	if len(raw) < 1+jobFields {
		return out, nil, nil
	}
	nj := decodeJob(j.shard, raw[1:1+jobFields])
	nj.claimed = time.Now()
	return out, &nj, nil
}
