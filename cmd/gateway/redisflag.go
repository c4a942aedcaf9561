package main

import (
	"context"
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
	r := &redisFlags{}
	fs.StringVar(&r.url, "redis-url", envOr("GATEWAY_REDIS_URL", platform.Defaults().RedisURL), "Redis URL, or a cluster seed with -redis-cluster (GATEWAY_REDIS_URL)")
	r.bad = platform.BindRedisCluster(fs, &r.cluster)
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
