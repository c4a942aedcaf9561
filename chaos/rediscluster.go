package chaos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisCluster is the cluster scenario's Redis: 3 masters with a replica
// each (scripts/redis-cluster.sh, cluster-node-timeout 2000, AOF with
// appendfsync always on every node).
type RedisCluster struct {
	Dir   string
	Ports []int
	Seed  string // go-redis cluster URL: the first three nodes
	root  string
}

func startRedisCluster(ctx context.Context, root, dir string) (*RedisCluster, error) {
	r := &RedisCluster{Dir: dir, root: root}
	for len(r.Ports) < 6 {
		p, err := freeClusterPort(r.Ports)
		if err != nil {
			return nil, err
		}
		r.Ports = append(r.Ports, p)
	}
	args := []string{"start", filepath.Join(dir, "redis")}
	for _, p := range r.Ports {
		args = append(args, strconv.Itoa(p))
	}
	out, err := exec.CommandContext(ctx, filepath.Join(root, "scripts", "redis-cluster.sh"), args...).Output()
	if err != nil {
		return r, fmt.Errorf("start redis cluster: %w", err)
	}
	r.Seed = strings.TrimSpace(string(out))
	return r, nil
}

// freeClusterPort is a free port whose cluster bus (port+10000) is free too.
func freeClusterPort(taken []int) (int, error) {
	for range 100 {
		p, err := freePort()
		if err != nil {
			return 0, err
		}
		if p >= 55535 || contains(taken, p) || contains(taken, p+10000) {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+10000)); err == nil {
			_ = ln.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free port pair for a cluster node")
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// client reaches the cluster; its slot map is reloaded every second, so
// the audit follows a failover by itself.
func (r *RedisCluster) client() (*redis.ClusterClient, error) {
	opt, err := redis.ParseClusterURL(r.Seed)
	if err != nil {
		return nil, err
	}
	opt.ClusterStateReloadInterval = time.Second
	return redis.NewClusterClient(opt), nil
}

// Kill9 kills one node.
func (r *RedisCluster) Kill9(ctx context.Context, port int) error {
	return r.script(ctx, "redis-cluster.sh", nil, "kill", filepath.Join(r.Dir, "redis"), strconv.Itoa(port))
}

// Restart brings a killed node back from its AOF; it rejoins as a replica.
func (r *RedisCluster) Restart(ctx context.Context, port int) error {
	return r.script(ctx, "redis.sh", []string{"REDIS_CLUSTER=yes"},
		"start", filepath.Join(r.Dir, "redis", "node-"+strconv.Itoa(port)), strconv.Itoa(port))
}

// Stop stops every node.
func (r *RedisCluster) Stop(ctx context.Context) error {
	return r.script(ctx, "redis-cluster.sh", nil, "stop", filepath.Join(r.Dir, "redis"))
}

func (r *RedisCluster) script(ctx context.Context, name string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(r.root, "scripts", name), args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %v: %w: %s", name, args, err, out)
	}
	return nil
}

// masterOfSlot0 is the port of the master serving slot 0, as the node on
// port asks sees it.
func masterOfSlot0(ctx context.Context, port int) (int, error) {
	node := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer node.Close()
	slots, err := node.ClusterSlots(ctx).Result()
	if err != nil {
		return 0, err
	}
	for _, s := range slots {
		if s.Start == 0 && len(s.Nodes) > 0 {
			_, p, _ := strings.Cut(s.Nodes[0].Addr, ":")
			return strconv.Atoi(p)
		}
	}
	return 0, errors.New("no master serves slot 0")
}

// StartOnRedisCluster starts a second, smaller world for the cluster
// scenario: a Redis Cluster, a database of its own (gateway_cluster) on
// the ClickHouse at chPort, its own receiver and six gateways with
// GATEWAY_REDIS_CLUSTER=true. Its fault is a master's kill -9.
func StartOnRedisCluster(ctx context.Context, cfg Config, log *slog.Logger, chPort int) (*Cluster, error) {
	c := &Cluster{cfg: cfg, log: log, chPort: chPort, chDB: "gateway_cluster"}
	dir := filepath.Join(cfg.DataDir, "rcluster")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var err error
	c.RCluster, err = startRedisCluster(ctx, cfg.Root, dir)
	if err != nil {
		return c, err
	}
	cl, err := c.RCluster.client()
	if err != nil {
		return c, err
	}
	c.rdb = cl
	for _, p := range c.RCluster.Ports {
		node := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p)})
		err := requireFsync(ctx, node)
		_ = node.Close()
		if err != nil {
			return c, fmt.Errorf("node %d: %w", p, err)
		}
	}
	return c, c.startGateways(ctx)
}

// clusterScenario kills -9 the master serving slot 0 (the seed's first
// address, which every gateway was given first) under the load, keeps it
// dead for the hold while its replica takes over, then restarts it as a
// replica. Creates, payments and webhooks of its shards fail until the
// promotion; the audit then requires that none answered was lost.
func clusterScenario() Scenario {
	return Scenario{Name: "redis-cluster-master-kill9", Fault: "Redis Cluster (3 masters + replicas): kill -9 of the master of slot 0 (the seed's first address)",
		Hold: 15 * time.Second, QHold: 10 * time.Second,
		Inject: func(ctx context.Context, c *Cluster, hold time.Duration) error {
			rc := c.RCluster
			if rc == nil {
				return errors.New("not on a Redis Cluster")
			}
			victim, err := masterOfSlot0(ctx, rc.Ports[1])
			if err != nil {
				return err
			}
			if err := rc.Kill9(ctx, victim); err != nil {
				return err
			}
			c.log.Info("killed Redis Cluster master", "port", victim)
			_ = sleep(ctx, hold)
			return rc.Restart(ctx, victim)
		}}
}
