package operator

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// disabledEndpoint is an endpoint the dispatcher disabled, as it raises it
// (dispatcher.EndpointException).
type disabledEndpoint struct {
	AppID      string `json:"appid"`
	EndpointID string `json:"endpoint"`
	URL        string `json:"url"`
}

// endpointSource reads the queue's endpoint_disabled exceptions.
type endpointSource struct{ x *Exceptions }

// read: merchants' webhook endpoints the dispatcher disabled because every
// attempt failed for days. The merchant sees a banner and its other
// endpoints got endpoint.disabled; an operator may want to call.
func (src endpointSource) read(ctx context.Context) ([]Exception, error) {
	x := src.x
	shards, err := x.perShard(ctx, newest(schema.EndpointExceptionsKey, x.cfg.PerSource))
	if err != nil {
		return nil, err
	}
	var out []Exception
	for s, zs := range shards {
		if len(zs) == 0 {
			continue
		}
		members := make([]string, len(zs))
		for i, z := range zs {
			members[i], _ = z.Member.(string)
		}
		raw, err := x.rdb.HMGet(ctx, schema.EndpointExceptionKey(schema.Shard(s)), members...).Result()
		if err != nil && err != redis.Nil {
			return nil, err
		}
		for i, z := range zs {
			var d disabledEndpoint
			if json.Unmarshal([]byte(str(raw[i])), &d) != nil {
				continue
			}
			out = append(out, Exception{Kind: schema.ExceptionEndpointDisabled, ID: d.EndpointID, AppID: d.AppID, At: ms(z.Score),
				Detail: "webhook endpoint " + d.URL + " disabled: every attempt failed for days", Actions: []string{ActionHandle}})
		}
	}
	return out, nil
}
