package platform

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// SharedKeys hands every process the same secret for a purpose (the payer
// forms' CSRF key) without an operator having to make and distribute one:
// the first process to ask creates it in Redis, the others read it.
type SharedKeys struct{ rdb redis.UniversalClient }

// NewSharedKeys keeps the keys in rdb.
func NewSharedKeys(rdb redis.UniversalClient) *SharedKeys { return &SharedKeys{rdb: rdb} }

// Key returns the 32-byte key named name, creating it on first use.
func (s *SharedKeys) Key(ctx context.Context, name string) ([]byte, error) {
	k := schema.SharedKeyKey(name)
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	if err := s.rdb.SetNX(ctx, k, fresh, 0).Err(); err != nil {
		return nil, fmt.Errorf("create shared key %s: %w", name, err)
	}
	b, err := s.rdb.Get(ctx, k).Bytes()
	if err != nil {
		return nil, fmt.Errorf("read shared key %s: %w", name, err)
	}
	if len(b) < 32 {
		return nil, fmt.Errorf("shared key %s is %d bytes, want 32", name, len(b))
	}
	return b, nil
}
