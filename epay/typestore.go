package epay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// TypesKey holds the operator's mapping in ParseTypes' form, set from the
// operator console; absent, the configured default (GATEWAY_EPAY_TYPES)
// is in force.
const TypesKey = "gw:epay:types"

// TypeStore is the mapping in force: the operator's, kept in Redis, else
// the configured default. Every process reads the same key, so a change
// reaches every door within TypeStoreTTL.
type TypeStore struct {
	rdb      redis.UniversalClient
	fallback Types
	now      func() time.Time

	mu      sync.Mutex
	cached  Types
	readAt  time.Time
	hasRead bool
}

// TypeStoreTTL is how long a read of the mapping is kept: a door asks per
// request, and a change may take this long to reach every process.
const TypeStoreTTL = time.Second

// NewTypeStore is the mapping over rdb with fallback as the default.
func NewTypeStore(rdb redis.UniversalClient, fallback Types) *TypeStore {
	return &TypeStore{rdb: rdb, fallback: fallback, now: time.Now}
}

// Types is the mapping in force. A stored mapping that no longer parses
// (a method retired since) is an error, not a silent fall back; a read
// that fails after one succeeded answers the last mapping read.
func (s *TypeStore) Types(ctx context.Context) (Types, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasRead && s.now().Sub(s.readAt) < TypeStoreTTL {
		return s.cached, nil
	}
	raw, stored, err := s.Stored(ctx)
	if err != nil && s.hasRead {
		return s.cached, nil // Redis away: the last mapping read, rather than no door
	}
	if err != nil {
		return Types{}, err
	}
	t := s.fallback
	if stored {
		if t, err = ParseTypes(raw); err != nil {
			return Types{}, fmt.Errorf("stored epay types: %w", err)
		}
	}
	s.cached, s.readAt, s.hasRead = t, s.now(), true
	return t, nil
}

// Default is the configured mapping (GATEWAY_EPAY_TYPES).
func (s *TypeStore) Default() Types { return s.fallback }

// Stored is the operator's mapping as kept, and whether there is one.
func (s *TypeStore) Stored(ctx context.Context) (string, bool, error) {
	raw, err := s.rdb.Get(ctx, TypesKey).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read epay types: %w", err)
	}
	return raw, true, nil
}

// Set validates mapping (ParseTypes) and keeps it, in its normal form.
func (s *TypeStore) Set(ctx context.Context, mapping string) (Types, error) {
	t, err := ParseTypes(mapping)
	if err != nil {
		return Types{}, err
	}
	if err := s.rdb.Set(ctx, TypesKey, t.String(), 0).Err(); err != nil {
		return Types{}, fmt.Errorf("keep epay types: %w", err)
	}
	s.forget()
	return t, nil
}

// Reset drops the operator's mapping: the default is in force again.
func (s *TypeStore) Reset(ctx context.Context) error {
	if err := s.rdb.Del(ctx, TypesKey).Err(); err != nil {
		return fmt.Errorf("drop epay types: %w", err)
	}
	s.forget()
	return nil
}

func (s *TypeStore) forget() {
	s.mu.Lock()
	s.hasRead = false
	s.mu.Unlock()
}
