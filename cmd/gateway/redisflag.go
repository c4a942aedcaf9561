package main

import (
	"context"
	"errors"
	"flag"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// redisFlags are the Redis flags every CLI command shares with serve, so
// `gateway merchant ...` reaches a cluster exactly as the server does.
type redisFlags struct {
	url     string
	cluster bool
	bad     error // an environment value that could not be read
}

func bindRedis(fs *flag.FlagSet) *redisFlags {
	r := &redisFlags{url: platform.Defaults().RedisURL}
	b := platform.NewBinder(fs)
	b.String(&r.url, "redis-url", "GATEWAY_REDIS_URL", "Redis URL, or a cluster seed with -redis-cluster")
	platform.BindRedisCluster(b, &r.cluster)
	r.bad = errors.Join(b.Errs()...)
	return r
}

func (r *redisFlags) open(ctx context.Context) (redis.UniversalClient, error) {
	if r.bad != nil {
		return nil, r.bad
	}
	d := platform.Defaults()
	return platform.OpenRedis(ctx, r.url, r.cluster,
		platform.WithReplicaWait(platform.NewReplicaWait(d.RedisWaitReplicas, d.RedisWaitTimeout, nil)))
}
