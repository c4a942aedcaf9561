package platform

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// OpenRedis connects and pings, so a wrong URL fails at start, not at the
// first merchant request. With cluster set, rawURL is go-redis's cluster
// seed form (redis://h1:7000?addr=h2:7001&addr=h3:7002) and the client
// follows the cluster's slots itself; every script's keys share one hash
// tag, so nothing of ours needs to know which node holds what.
func OpenRedis(ctx context.Context, rawURL string, cluster bool, opts ...RedisOption) (redis.UniversalClient, error) {
	c, where, err := newRedis(rawURL, cluster, opts)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("ping redis at %s: %w", where, err)
	}
	return c, nil
}

// RedisOption adjusts a client OpenRedis makes.
type RedisOption func(*redisOptions)

type redisOptions struct{ wait *ReplicaWait }

// WithReplicaWait makes every write on a cluster wait for w.Replicas
// replicas (ReplicaWait); a single node ignores it, its AOF being the
// durability there.
func WithReplicaWait(w *ReplicaWait) RedisOption {
	return func(o *redisOptions) { o.wait = w }
}

func newRedis(rawURL string, cluster bool, opts []RedisOption) (redis.UniversalClient, string, error) {
	var o redisOptions
	for _, f := range opts {
		f(&o)
	}
	if !cluster {
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, "", fmt.Errorf("parse redis url: %w", err)
		}
		return redis.NewClient(opt), opt.Addr, nil
	}
	opt, err := redis.ParseClusterURL(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("parse redis cluster url: %w", err)
	}
	// Reads stay on masters: a replica may lag behind an answered create.
	// The stream consumers hold a connection per shard stream blocked in
	// XREADGROUP (platform.Consumer), on whichever node has the stream:
	// the pool keeps room for those of the projector and the dispatcher
	// beside go-redis's default, unless the URL sets pool_size.
	if opt.PoolSize == 0 {
		opt.PoolSize = 10*runtime.GOMAXPROCS(0) + 2*schema.NumShards
	}
	if opt.ClusterStateReloadInterval == 0 {
		opt.ClusterStateReloadInterval = clusterReloadInterval
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = clusterDialTimeout
	}
	c := redis.NewClusterClient(opt)
	reloadOnNetError(c)
	if o.wait != nil && o.wait.Replicas > 0 {
		o.wait.Install(c) // before the first command makes any node
	}
	return c, fmt.Sprint(opt.Addrs), nil
}
