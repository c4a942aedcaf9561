package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestIsNetError: a lost or refused connection asks for a slot-map reload;
// an answer of Redis and a caller giving up do not (a reload per redis.Nil
// would be a CLUSTER SLOTS per cache miss).
func TestIsNetError(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"nil", context.Background(), nil, false},
		{"refused dial", context.Background(), refused, true},
		{"wrapped refused dial", context.Background(), fmt.Errorf("read order: %w", refused), true},
		{"reset", context.Background(), syscall.ECONNRESET, true},
		{"closed by the server", context.Background(), io.EOF, true},
		{"redis.Nil", context.Background(), redis.Nil, false},
		{"a script's error", context.Background(), fmt.Errorf("create: %w", errRedisReply("ERR insufficient balance")), false},
		{"caller gave up", cancelled, refused, false},
		{"other", context.Background(), errors.New("bad amount"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := isNetError(tc.ctx, tc.err); got != tc.want {
				t.Errorf("isNetError(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// errRedisReply is an error reply as go-redis types it.
type errRedisReply string

func (e errRedisReply) Error() string { return string(e) }
func (errRedisReply) RedisError()     {}
