package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/paygate/gateway/bench/loadgen"
)

// clusterScenario is two gateways sharing one Redis and ClickHouse.
type clusterScenario struct{ *bench }

// clusterReport is createorder on Redis Cluster (3 masters with a replica
// each, AOF always on every node, every answered write waiting for its
// replica): one gateway process with the command role, then two sharing
// the same load generator's connections, as a load balancer would.
type clusterReport struct {
	One loadgen.Result    `json:"one_gateway"`
	Two []loadgen.Result  `json:"two_gateways"`
	Sum float64           `json:"two_gateways_throughput"`
	Env map[string]string `json:"env,omitempty"`
}

// runCluster measures createorder on the cluster named by --redis-cluster-url.
func (b clusterScenario) runCluster(ctx context.Context) error {
	cc := *b.cfg
	cc.RedisURL = b.cfg.ClusterURL
	cc.GatewayEnv = append(append([]string{}, b.cfg.GatewayEnv...), "GATEWAY_REDIS_CLUSTER=true")
	m, err := newMerchant(ctx, &cc, "bench-cluster")
	if err != nil {
		return fmt.Errorf("merchant on the cluster: %w", err)
	}
	rep := &clusterReport{}
	b.rep.Cluster = rep
	g1, err := startGateway(ctx, &cc, "gateway-cluster-1", "command")
	if err != nil {
		return err
	}
	defer g1.stop()
	n := b.cfg.PoolRate * int((b.cfg.Phase+warmup(b.cfg.Phase)).Seconds()+1)
	rep.One, err = b.closed(ctx, "createorder on the cluster, 1 gateway", g1, createTarget(createBodies(m, ownCreate, "cl1", n, nil)), b.cfg.Phase, checkCreate(nil))
	if err != nil {
		return err
	}
	g2, err := startGateway(ctx, &cc, "gateway-cluster-2", "command")
	if err != nil {
		return err
	}
	defer g2.stop()
	rep.Two, err = b.closedPair(ctx, "createorder on the cluster, 2 gateways", [2]*server{g1, g2}, m, n)
	for _, r := range rep.Two {
		rep.Sum += r.Throughput
	}
	b.logf("createorder on the cluster: 1 gateway %.0f/s, 2 gateways %.0f/s", rep.One.Throughput, rep.Sum)
	return err
}

// closedPair runs two closed loops at once, one per gateway, each with half
// the connections: the same offered concurrency as the one-gateway phase.
func (b clusterScenario) closedPair(ctx context.Context, name string, gws [2]*server, m account, n int) ([]loadgen.Result, error) {
	out := make([]loadgen.Result, 2)
	errs := make([]error, 2)
	var answered atomic.Uint64
	err := b.measure(name, gws[:], &answered, func() error {
		var wg sync.WaitGroup
		for i, gw := range gws {
			bodies := createBodies(m, ownCreate, fmt.Sprintf("cl2-%d", i), n/2+1, nil)
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], errs[i] = loadgen.Closed(ctx, createTarget(bodies), loadgen.Options{Addr: gw.addr,
					Concurrency: max(1, b.cfg.Concurrency/2), Duration: b.cfg.Phase, Warmup: warmup(b.cfg.Phase),
					OnResponse: counting(checkCreate(nil), &answered)})
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	for i := range out {
		b.logf("%s, gateway %d: %s", name, i+1, out[i].String())
	}
	return out, err
}
