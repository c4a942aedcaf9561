package platform

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// ReplicaWait makes a write on Redis Cluster wait until a replica holds it
// before the caller sees its answer. A cluster replicates asynchronously:
// a master killed right after answering could take the write with it, and
// its promoted replica would never have seen it, so a create we answered
// 200 would be gone. After every command or pipeline that may write, the
// master is sent WAIT Replicas Timeout on the same node; batching keeps that
// at one WAIT per node per pipeline.
//
// When no replica acknowledges within Timeout (the replica is down or
// resyncing) the answer still goes out and Unreplicated counts it: we keep
// taking payments through a replica outage rather than refusing them, and
// the dashboard shows the exposure.
type ReplicaWait struct {
	Replicas int
	Timeout  time.Duration

	unreplicated prometheus.Counter
	waitSeconds  prometheus.Histogram
}

// NewReplicaWait registers its metrics on reg.
func NewReplicaWait(replicas int, timeout time.Duration, reg prometheus.Registerer) *ReplicaWait {
	w := &ReplicaWait{
		Replicas: replicas, Timeout: timeout,
		unreplicated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gateway_redis_unreplicated_writes_total",
			Help: "Writes answered before a replica acknowledged them (Redis Cluster WAIT timed out).",
		}),
		waitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gateway_redis_replica_wait_seconds",
			Help:    "Time a write waited for its replica (WAIT) on Redis Cluster.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .25},
		}),
	}
	if reg != nil {
		reg.MustRegister(w.unreplicated, w.waitSeconds)
	}
	return w
}

// Install hooks w into every master the cluster client reaches.
func (w *ReplicaWait) Install(c *redis.ClusterClient) {
	c.OnNewNode(func(node *redis.Client) { node.AddHook(&waitHook{w: w, node: node}) })
}

type waitHook struct {
	w    *ReplicaWait
	node *redis.Client
}

func (h *waitHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h *waitHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && writes(cmd) {
			h.wait(ctx)
		}
		return err
	}
}

func (h *waitHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if c.Err() == nil && writes(c) {
				h.wait(ctx)
				break
			}
		}
		return err
	}
}

func (h *waitHook) wait(ctx context.Context) {
	start := time.Now()
	n, err := h.node.Do(ctx, "wait", h.w.Replicas, h.w.Timeout.Milliseconds()).Int()
	h.w.waitSeconds.Observe(time.Since(start).Seconds())
	if err != nil || n < h.w.Replicas {
		h.w.unreplicated.Inc()
	}
}

// readOnly are the commands of ours that never change data; everything else
// is waited for. A script call counts as a write: most of ours are.
var readOnly = map[string]bool{
	"get": true, "mget": true, "hget": true, "hmget": true, "hgetall": true, "hexists": true, "hlen": true,
	"exists": true, "ttl": true, "pttl": true, "type": true, "strlen": true,
	"lrange": true, "llen": true, "lindex": true, "smembers": true, "sismember": true, "scard": true,
	"zrange": true, "zrangebyscore": true, "zscore": true, "zcard": true, "zcount": true, "zrevrange": true,
	"xrange": true, "xrevrange": true, "xlen": true, "xinfo": true, "xpending": true,
	"ping": true, "echo": true, "info": true, "cluster": true, "wait": true, "script": true,
	"readonly": true, "readwrite": true, "hello": true, "client": true, "select": true, "auth": true,
	"multi": true, "exec": true, "evalsha_ro": true, "eval_ro": true, "command": true,
}

// rateLimitSHA is the rate limiter's script: a counter that a failover may
// lose without harm, on every request, so it is not worth a WAIT.
var rateLimitSHA = redis.NewScript(rateLimitLua).Hash()

func writes(cmd redis.Cmder) bool {
	name := strings.ToLower(cmd.Name())
	if name == "evalsha" {
		if args := cmd.Args(); len(args) > 1 && args[1] == rateLimitSHA {
			return false
		}
	}
	return !readOnly[name]
}
