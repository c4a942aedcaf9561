package events

import (
	"context"
	"fmt"
	"sort"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// ListMany is the endpoints of each of appids (List's, oldest first) in one
// pipeline: the fan-out reads every merchant of a batch of events at once,
// and a merchant without endpoints costs one HGETALL of an empty key.
func (s *Store) ListMany(ctx context.Context, appids []string) (map[string][]Endpoint, error) {
	cmds := make([]*redis.MapStringStringCmd, len(appids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, a := range appids {
			cmds[i] = p.HGetAll(ctx, schema.EndpointsKey(a))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read webhook endpoints: %w", err)
	}
	out := make(map[string][]Endpoint, len(appids))
	for i, a := range appids {
		all := cmds[i].Val()
		if len(all) == 0 {
			out[a] = nil
			continue
		}
		eps := make([]Endpoint, 0, len(all))
		for _, raw := range all {
			e, err := decodeEndpoint(raw)
			if err != nil {
				return nil, err
			}
			eps = append(eps, e)
		}
		sortEndpoints(eps)
		out[a] = eps
	}
	return out, nil
}

func sortEndpoints(out []Endpoint) {
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID < out[j].ID
	})
}
