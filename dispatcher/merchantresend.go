package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// MaxBulkResend bounds how many dead deliveries one ResendDead queues: a
// day of an endpoint being down is re-sent in a few clicks, not one call
// that holds the console for minutes.
const MaxBulkResend = 1000

// BulkResend is what ResendDead did.
type BulkResend struct {
	Queued  int  // dead deliveries queued for one more attempt
	Skipped int  // no longer dead, or an attempt in flight
	More    bool // the range holds more than MaxBulkResend dead deliveries
}

// ResendDead queues one more attempt of each of appid's dead deliveries
// whose event happened in [from, to), oldest first, at most MaxBulkResend,
// each through the one resend (Webhooks.Resend) as the signed API's, not
// audited: the caller audits the whole as one action with its count.
func (m *MerchantDeliveries) ResendDead(ctx context.Context, appid string, from, to time.Time) (BulkResend, error) {
	var res BulkResend
	if appid == "" || !to.After(from) {
		return res, errors.New("resend dead webhooks: a merchant and a range that ends after it starts are required")
	}
	min, max := strconv.FormatInt(from.UnixMilli(), 10), "("+strconv.FormatInt(to.UnixMilli(), 10)
	// Pending deliveries share the index, so more candidates than the bound
	// are read; they are skipped without a write.
	cands, err := m.candidates(ctx, appid, min, max, 4*MaxBulkResend, false, false)
	if err != nil {
		return res, err
	}
	dead, err := m.deadOf(ctx, appid, cands)
	if err != nil {
		return res, err
	}
	if len(dead) > MaxBulkResend {
		dead, res.More = dead[:MaxBulkResend], true
	}
	hooks := &Webhooks{store: m.store, now: m.now}
	for _, c := range dead {
		paymentID, refundID := c.id, ""
		if schema.IsRefundID(c.id) {
			paymentID, refundID = c.paymentID, c.id
		}
		switch err := hooks.Resend(ctx, ResendAsk{PaymentID: paymentID, RefundID: refundID, AppID: appid}); {
		case errors.Is(err, ErrNoDelivery) || errors.Is(err, ErrInFlight):
			res.Skipped++
		case err != nil:
			return res, err
		default:
			res.Queued++
		}
	}
	return res, nil
}

// deadCandidate is a dead delivery and, for a refund's, its order.
type deadCandidate struct {
	candidate
	paymentID string
}

// deadOf keeps the candidates that are appid's and dead now.
func (m *MerchantDeliveries) deadOf(ctx context.Context, appid string, cands []candidate) ([]deadCandidate, error) {
	cmds := make([]*redis.SliceCmd, len(cands))
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, c := range cands {
			cmds[i] = p.HMGet(ctx, schema.WebhookKey(c.shard, c.id), "st", "appid", "p")
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read dead webhooks of %s: %w", appid, err)
	}
	var out []deadCandidate
	for i, c := range cands {
		v := cmds[i].Val()
		st, _ := v[0].(string)
		owner, _ := v[1].(string)
		stored, _ := v[2].(string)
		if st == StateDead && owner == appid {
			out = append(out, deadCandidate{candidate: c, paymentID: paymentOf(stored)})
		}
	}
	return out, nil
}

// Rate is a merchant's webhook attempts over the last day: every attempt
// recorded (automatic and manual) and how many were acknowledged, in total
// and per UTC hour, oldest hour first.
type Rate struct {
	Attempts, Succeeded int64
	Hours               []HourRate
}

// HourRate is one hour of Rate.
type HourRate struct {
	Hour                time.Time
	Attempts, Succeeded int64
}

// Percent is the success rate in percent; -1 when nothing was attempted.
func (r Rate) Percent() float64 {
	if r.Attempts == 0 {
		return -1
	}
	return 100 * float64(r.Succeeded) / float64(r.Attempts)
}

// SuccessRate sums appid's attempt counters of the last 24 hours (this
// hour and the 23 before it) over every shard, in one pipeline.
func (m *MerchantDeliveries) SuccessRate(ctx context.Context, appid string) (Rate, error) {
	last := m.now().Unix() / 3600
	shards := schema.AllShards()
	cmds := make([][]*redis.SliceCmd, 24)
	_, err := m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for h := range cmds {
			cmds[h] = make([]*redis.SliceCmd, len(shards))
			for i, sh := range shards {
				cmds[h][i] = p.HMGet(ctx, schema.WebhookRateKey(sh, appid, last-23+int64(h)), "a", "s")
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Rate{}, fmt.Errorf("read webhook success rate of %s: %w", appid, err)
	}
	r := Rate{Hours: make([]HourRate, 24)}
	for h := range cmds {
		hr := HourRate{Hour: time.Unix((last-23+int64(h))*3600, 0).UTC()}
		for _, c := range cmds[h] {
			v := c.Val()
			hr.Attempts += count(v[0])
			hr.Succeeded += count(v[1])
		}
		r.Hours[h] = hr
		r.Attempts += hr.Attempts
		r.Succeeded += hr.Succeeded
	}
	return r, nil
}

func count(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
