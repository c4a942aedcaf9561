// Package usdtsim is what the usdt simulators (tron, bsc, exchange) share:
// a simulated chain's clock, the failures a tester can order for one
// transaction, and their records kept in provider.State so that every
// gateway process answers alike. The protocols themselves stay in the
// simulators' packages.
package usdtsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/paygate/gateway/provider"
)

// DefaultGenesis is the simulated chains' first block time. It is a
// constant, not the start of a process, so that every process computes the
// same block height at the same moment.
var DefaultGenesis = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Chain is a simulated chain's clock: block 1 is made at Genesis and one
// more every Interval, so confirmations accumulate as Now moves.
type Chain struct {
	Genesis  time.Time
	Interval time.Duration
	Now      func() time.Time // injectable, so tests move time without sleeping
}

// BlockAt is the block made at or last before t (0 before Genesis).
func (c Chain) BlockAt(t time.Time) int64 {
	if t.Before(c.Genesis) {
		return 0
	}
	return int64(t.Sub(c.Genesis)/c.Interval) + 1
}

// Head is the newest block now.
func (c Chain) Head() int64 { return c.BlockAt(c.Now()) }

// TimeOf is when block n was made.
func (c Chain) TimeOf(n int64) time.Time {
	return c.Genesis.Add(time.Duration(n-1) * c.Interval)
}

// Failure is how a simulator misbehaves for one transaction, to show the
// reviewer a backend that is down.
type Failure string

// Failures.
const (
	Healthy Failure = ""     // answer normally
	Down    Failure = "down" // HTTP 503
	Hang    Failure = "hang" // no answer until the caller gives up (or Store.Hang passes)
)

// Valid reports whether f is a failure the simulators know.
func (f Failure) Valid() bool { return f == Healthy || f == Down || f == Hang }

// Store keeps a simulator's records as JSON in a provider.State under its
// own prefix.
type Store struct {
	State   provider.State
	Prefix  string        // e.g. "usdtsim:tron:"
	KeepFor time.Duration // how long a record lives; 30 days when zero
	Hang    time.Duration // the longest a Hang failure holds an answer; 30 s when zero
}

func (s Store) keep() time.Duration {
	if s.KeepFor <= 0 {
		return 30 * 24 * time.Hour
	}
	return s.KeepFor
}

// Put keeps v under kind and id.
func (s Store) Put(ctx context.Context, kind, id string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", kind, err)
	}
	if err := s.State.Put(ctx, s.Prefix+kind+":"+id, b, s.keep()); err != nil {
		return fmt.Errorf("keep %s: %w", kind, err)
	}
	return nil
}

// Get reads what Put kept into v; found is false for an absent record.
func (s Store) Get(ctx context.Context, kind, id string, v any) (found bool, err error) {
	b, err := s.State.Get(ctx, s.Prefix+kind+":"+id)
	if errors.Is(err, provider.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", kind, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("decode %s: %w", kind, err)
	}
	return true, nil
}

// SetFailure orders f for id (a transaction hash, or a simulator's own
// name for a whole endpoint); Healthy clears it.
func (s Store) SetFailure(ctx context.Context, id string, f Failure) error {
	if !f.Valid() {
		return fmt.Errorf("unknown failure %q", f)
	}
	return s.Put(ctx, "fail", id, f)
}

// Misbehave answers as the failure ordered for id says and reports whether
// it did; a Healthy id leaves the answer to the caller. A State error is
// answered as the backend being down, which is what it is.
func (s Store) Misbehave(w http.ResponseWriter, r *http.Request, id string) bool {
	var f Failure
	if _, err := s.Get(r.Context(), "fail", id, &f); err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return true
	}
	switch f {
	case Down:
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return true
	case Hang:
		hang := s.Hang
		if hang <= 0 {
			hang = 30 * time.Second
		}
		select {
		case <-r.Context().Done():
		case <-time.After(hang):
		}
		http.Error(w, "gateway timeout", http.StatusGatewayTimeout)
		return true
	}
	return false
}

// RandomHex is n random bytes in lower-case hex: a simulated hash or id.
func RandomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
