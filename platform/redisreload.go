package platform

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster topology defaults, so that a master's death does not stall the
// gateway for a minute. go-redis reloads its slot map on MOVED and ASK, and
// otherwise only every ClusterStateReloadInterval (60 s by default): when a
// master dies, every command for its slots fails with a dial error to the
// dead address, which is neither, so the gateway kept failing for a minute
// after the replica had taken over. reloadOnNetError asks for a reload on
// every such error, and a short interval bounds how stale the map can be
// when no error tells us.
const (
	clusterReloadInterval = 5 * time.Second
	// A master that died with its host (no RST) makes a dial wait its
	// whole time-out, and the reload tries nodes one by one: 5 s, the
	// go-redis default, would spend the failover budget on one dead node.
	clusterDialTimeout = time.Second
)

// reloadOnNetError hooks every node the cluster client makes so that a
// network error (refused or timed-out dial, reset or closed connection)
// asks the client to reload the slot map. go-redis coalesces the requests
// (one CLUSTER SLOTS at a time, at most every 200 ms), so a storm of errors
// costs a few reloads per second until the promoted replica is in the map.
func reloadOnNetError(c *redis.ClusterClient) {
	reload := func() { c.ReloadState(context.Background()) }
	c.OnNewNode(func(node *redis.Client) { node.AddHook(netErrorHook{reload: reload}) })
}

type netErrorHook struct{ reload func() }

func (h netErrorHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil && ctx.Err() == nil {
			h.reload()
		}
		return conn, err
	}
}

func (h netErrorHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if isNetError(ctx, err) {
			h.reload()
		}
		return err
	}
}

func (h netErrorHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if isNetError(ctx, err) {
			h.reload()
			return err
		}
		for _, cmd := range cmds {
			if isNetError(ctx, cmd.Err()) {
				h.reload()
				break
			}
		}
		return err
	}
}

// isNetError tells a lost or refused connection from an answer of Redis
// (redis.Nil, a script's error, MOVED, which go-redis handles itself) and
// from the caller giving up.
func isNetError(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return false
	}
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, net.ErrClosed)
}
