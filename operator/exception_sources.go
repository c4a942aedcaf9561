package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
)

// Where each exception kind is kept. Every source is read per shard with
// one pipelined round trip, newest first, at most PerSource entries.

// perShard runs one sorted-set read on every shard in one pipeline and
// answers the members with their scores (ms), shard by shard.
func (x *Exceptions) perShard(ctx context.Context, read func(p redis.Pipeliner, s schema.Shard) *redis.ZSliceCmd) ([][]redis.Z, error) {
	cmds := make([]*redis.ZSliceCmd, schema.NumShards)
	_, err := x.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, s := range schema.AllShards() {
			cmds[s] = read(p, s)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	out := make([][]redis.Z, len(cmds))
	for i, c := range cmds {
		out[i], _ = c.Result()
	}
	return out, nil
}

// newest reads the n newest members of key's set on a shard.
func newest(key func(schema.Shard) string, n int) func(p redis.Pipeliner, s schema.Shard) *redis.ZSliceCmd {
	return func(p redis.Pipeliner, s schema.Shard) *redis.ZSliceCmd {
		return p.ZRevRangeWithScores(context.Background(), key(s), 0, int64(n-1))
	}
}

// notifications: orders in the exceptions index, each with its newest
// notification that needs a person.
func (x *Exceptions) notifications(ctx context.Context) ([]Exception, error) {
	shards, err := x.perShard(ctx, newest(schema.ExceptionsKey, x.cfg.PerSource))
	if err != nil {
		return nil, err
	}
	var out []Exception
	for s, zs := range shards {
		for _, z := range zs {
			id := z.Member.(string)
			raw, err := x.rdb.LRange(ctx, schema.NotificationsKey(schema.Shard(s), id), 0, 19).Result()
			if err != nil {
				return nil, err
			}
			for _, r := range raw {
				var rec schema.NotificationRecord
				if json.Unmarshal([]byte(r), &rec) != nil || rec.Exception() == "" {
					continue
				}
				out = append(out, x.fromRecord(ctx, rec, id))
				break
			}
		}
	}
	return out, nil
}

func (x *Exceptions) fromRecord(ctx context.Context, rec schema.NotificationRecord, id string) Exception {
	detail := rec.Detail
	if detail == "" {
		detail = rec.Verdict
	}
	if rec.Paid != "" && !strings.Contains(detail, rec.Paid) {
		detail += " (provider reports " + rec.Paid + ")"
	}
	o, _ := x.orders.Get(ctx, rec.OrderID)
	e := Exception{Kind: rec.Exception(), ID: id, OrderID: rec.OrderID, At: rec.At, Provider: rec.Provider,
		Verdict: rec.Verdict, Detail: detail, Paid: rec.Paid, Ref: rec.Ref, Actions: []string{ActionHandle}}
	if o != nil {
		e.AppID = o.AppID
	}
	if e.Kind == schema.ExceptionMismatch {
		if _, err := x.refunder(o); err == nil && evidenceOK(e) && o.Status != schema.StatusPaid {
			e.Actions = append(e.Actions, ActionRefund)
		}
		e.Actions = append(e.Actions, ActionRecordRefund)
	}
	return e
}

// refused: notifications naming no order of ours (the refused list).
func (x *Exceptions) refused(ctx context.Context) ([]Exception, error) {
	raw, err := x.rdb.LRange(ctx, schema.RefusedNotificationsKey, 0, int64(x.cfg.PerSource-1)).Result()
	if err != nil {
		return nil, err
	}
	out := make([]Exception, 0, len(raw))
	for _, r := range raw {
		var rec schema.NotificationRecord
		if json.Unmarshal([]byte(r), &rec) != nil {
			continue
		}
		e := x.fromRecord(ctx, rec, digest(r))
		e.Kind = schema.ExceptionRefused
		out = append(out, e)
	}
	return out, nil
}

// deadWebhooks: the dispatcher's dead letters (an order's, or a refund's).
func (x *Exceptions) deadWebhooks(ctx context.Context) ([]Exception, error) {
	shards, err := x.perShard(ctx, newest(schema.WebhookDeadKey, x.cfg.PerSource))
	if err != nil {
		return nil, err
	}
	var out []Exception
	for s, zs := range shards {
		for _, z := range zs {
			id := z.Member.(string)
			h, err := x.rdb.HMGet(ctx, schema.WebhookKey(schema.Shard(s), id), "appid", "p", "url").Result()
			if err != nil {
				return nil, err
			}
			e := Exception{Kind: schema.ExceptionWebhookDead, ID: id, OrderID: id, AppID: str(h[0]), At: ms(z.Score),
				Detail: "webhook to " + str(h[2]) + " failed every retry", Actions: []string{ActionResend, ActionHandle}}
			if schema.IsRefundID(id) {
				e.RefundID, e.OrderID = id, paymentOf(str(h[1]))
				e.Detail = "refund " + e.Detail
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// paymentOf reads the order id out of a refund delivery's stored
// parameters (JSON, or an older form encoding).
func paymentOf(stored string) string {
	var p schema.Params
	if json.Unmarshal([]byte(stored), &p) == nil {
		return p["paymentId"]
	}
	v, _ := url.ParseQuery(stored)
	return v.Get("paymentId")
}

// stuckRefunds: refunds still pending StuckRefund after they were asked
// for (the recovery sweep retries them; a person should look).
func (x *Exceptions) stuckRefunds(ctx context.Context) ([]Exception, error) {
	before := strconv.FormatInt(x.now().Add(-x.cfg.StuckRefund).UnixMilli(), 10)
	shards, err := x.perShard(ctx, func(p redis.Pipeliner, s schema.Shard) *redis.ZSliceCmd {
		return p.ZRangeByScoreWithScores(ctx, schema.RefundIndexKey(s), &redis.ZRangeBy{Min: "-inf", Max: before, Count: int64(x.cfg.PerSource)})
	})
	if err != nil {
		return nil, err
	}
	var out []Exception
	for _, zs := range shards {
		for _, z := range zs {
			order, refund, ok := schema.ParseRefundIndexMember(z.Member.(string))
			if !ok {
				continue
			}
			at := ms(z.Score)
			out = append(out, Exception{Kind: schema.ExceptionRefundStuck, ID: refund, OrderID: order, RefundID: refund,
				AppID: x.appOf(ctx, order), At: at, Detail: fmt.Sprintf("refund pending since %s", at.Format(time.RFC3339)),
				Actions: []string{ActionHandle}})
		}
	}
	return out, nil
}

// usdtBackends: USDT reviews retrying because the chain or the exchange
// could not be asked, or handed to an administrator for that reason.
func (x *Exceptions) usdtBackends(ctx context.Context) ([]Exception, error) {
	orders, err := x.backlog.Reviews(ctx, command.BacklogAll)
	if err != nil {
		return nil, err
	}
	var out []Exception
	for _, o := range orders {
		r := schema.USDTReviewOf(o)
		if r == nil || (r.State != schema.ReviewRetrying && !(r.State == schema.ReviewWaitingAdmin && o.ReviewReason == backendDown)) {
			continue
		}
		out = append(out, Exception{Kind: schema.ExceptionUSDTBackend, ID: o.ID, OrderID: o.ID, AppID: o.AppID, At: o.UpdatedAt,
			Provider: o.Network, Verdict: r.State, Detail: r.Describe(), Actions: []string{ActionHandle}})
	}
	return out, nil
}

// backendDown is the reviewers' reason word for a backend that failed.
const backendDown = "backend_down"

// appOf names the order's merchant; "" for an order we do not hold.
func (x *Exceptions) appOf(ctx context.Context, id string) string {
	if o, err := x.orders.Get(ctx, id); err == nil {
		return o.AppID
	}
	return ""
}

func str(v any) string { s, _ := v.(string); return s }

func ms(score float64) time.Time { return time.UnixMilli(int64(score)).UTC() }
