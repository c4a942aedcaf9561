package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// RedisState keeps the simulators' sessions in Redis, so that any gateway
// process answers for a payment another one created. The provider package
// owns these keys (schema.SimKeyPrefix); nothing else reads them.
type RedisState struct{ rdb redis.UniversalClient }

// NewRedisState is the State every gateway process shares.
func NewRedisState(rdb redis.UniversalClient) *RedisState { return &RedisState{rdb: rdb} }

// Put stores value under key for ttl.
func (s *RedisState) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, schema.SimKeyPrefix+key, value, ttl).Err(); err != nil {
		return fmt.Errorf("store simulator state: %w", err)
	}
	return nil
}

// Get returns ErrNotFound when the key is absent or expired.
func (s *RedisState) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := s.rdb.Get(ctx, schema.SimKeyPrefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read simulator state: %w", err)
	}
	return v, nil
}
