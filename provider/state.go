package provider

import (
	"context"
	"strings"
	"sync"
	"time"
)

// State is where a simulator keeps its sessions and transactions, so that
// any gateway process can answer for a payment another one created. The
// process wires it (Redis); tests use MemState.
type State interface {
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns ErrNotFound when the key is absent or expired.
	Get(ctx context.Context, key string) ([]byte, error)
}

// MemState is a State in memory, for tests and single-process tools.
type MemState struct {
	mu sync.Mutex
	m  map[string]memEntry
	l  map[string][][]byte // Lists
}

type memEntry struct {
	v   []byte
	exp time.Time
}

// Put stores value under key for ttl.
func (s *MemState) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]memEntry{}
	}
	s.m[strings.Clone(key)] = memEntry{v: append([]byte(nil), value...), exp: time.Now().Add(ttl)} // key may alias a request
	return nil
}

// Get reads key.
func (s *MemState) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	if !ok || time.Now().After(e.exp) {
		return nil, ErrNotFound
	}
	return append([]byte(nil), e.v...), nil
}
