package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Lists is a State that also keeps append-only lists: a simulator's day of
// settled payments, which its statement is built from.
type Lists interface {
	Append(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Range calls fn with each value of key's list in order; an absent key
	// is an empty list.
	Range(ctx context.Context, key string, fn func([]byte) error) error
}

// Append adds value to key's list, which lives ttl from its last append.
func (s *MemState) Append(_ context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.l == nil {
		s.l = map[string][][]byte{}
	}
	k := strings.Clone(key)
	s.l[k] = append(s.l[k], append([]byte(nil), value...))
	return nil
}

// Range reads key's list.
func (s *MemState) Range(_ context.Context, key string, fn func([]byte) error) error {
	s.mu.Lock()
	vals := append([][]byte(nil), s.l[key]...)
	s.mu.Unlock()
	for _, v := range vals {
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

// Append adds value to key's list, which lives ttl from its last append.
func (s *RedisState) Append(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	pipe := s.rdb.TxPipeline()
	pipe.RPush(ctx, schema.SimKeyPrefix+key, value)
	pipe.Expire(ctx, schema.SimKeyPrefix+key, ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("append simulator state: %w", err)
	}
	return nil
}

// rangeChunk is how many values one read of a list takes: a day of a
// hundred thousand payments is read in bounded steps.
const rangeChunk = 1000

// Range reads key's list in chunks.
func (s *RedisState) Range(ctx context.Context, key string, fn func([]byte) error) error {
	for i := int64(0); ; i += rangeChunk {
		vals, err := s.rdb.LRange(ctx, schema.SimKeyPrefix+key, i, i+rangeChunk-1).Result()
		if err != nil {
			return fmt.Errorf("read simulator state: %w", err)
		}
		for _, v := range vals {
			if err := fn([]byte(v)); err != nil {
				return err
			}
		}
		if len(vals) < rangeChunk {
			return nil
		}
	}
}
