package platform

import (
	"context"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// ReplicaWait makes a write on Redis Cluster wait until a replica holds it
// before the caller sees its answer. A cluster replicates asynchronously:
// a master killed right after answering could take the write with it, and
// its promoted replica would never have seen it, so a create we answered
// 200 would be gone. Every command or pipeline that may write carries a
// WAIT Replicas Timeout behind it on the same connection (WAIT only covers
// that connection's writes); batching keeps that at one WAIT per node per
// pipeline.
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

// ProcessHook sends a lone write as a pipeline of one, so that the
// pipeline hook puts its WAIT on the same connection: WAIT only covers
// the writes made earlier on the connection it is sent on.
func (h *waitHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !writes(cmd) {
			return next(ctx, cmd)
		}
		_, _ = h.node.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Process(ctx, cmd) })
		return cmd.Err()
	}
}

// ProcessPipelineHook appends one WAIT to a pipeline holding a write: one
// connection carries both, and a batch of writes costs one WAIT.
func (h *waitHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		// A MULTI/EXEC block must end with EXEC for go-redis to read it:
		// transactions (rare operator writes: merchant settings, FX rates)
		// go without a WAIT; every payment path is a script.
		if !slices.ContainsFunc(cmds, writes) || (len(cmds) > 0 && strings.EqualFold(cmds[0].Name(), "multi")) {
			return next(ctx, cmds)
		}
		wait := redis.NewIntCmd(ctx, "wait", h.w.Replicas, h.w.Timeout.Milliseconds())
		start := time.Now()
		err := next(ctx, append(cmds[:len(cmds):len(cmds)], wait))
		h.w.waitSeconds.Observe(time.Since(start).Seconds())
		if n, werr := wait.Result(); werr != nil || n < int64(h.w.Replicas) {
			h.w.unreplicated.Inc()
		}
		return err
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
	// A consumer group's read and acknowledgement: lost in a failover,
	// the entry is delivered again (at least once), which both consumers
	// expect; and a blocking read cannot ride in a pipeline.
	"xreadgroup": true, "xack": true, "xautoclaim": true, "xclaim": true,
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
