package command

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// HeaderIdempotencyKey is the optional header that makes a signed merchant
// call safe to retry (DESIGN.md's "retries beyond clientOrderId"); its
// refusals name it.
const HeaderIdempotencyKey = "Idempotency-Key"

// DefaultIdempotencyTTL is how long a decided answer is kept: a day, the
// window DESIGN.md promises.
const DefaultIdempotencyTTL = 24 * time.Hour

const (
	// idemLock is how long a claim holds a key while its call runs: longer
	// than any create (provider calls time out well before), so a live call
	// is never run twice; a process that dies mid-call frees its keys then.
	idemLock = 2 * time.Minute
	// idemWait bounds how long a concurrent call with the same key waits
	// for the first one's answer before it gets idempotency_in_progress.
	idemWait = 5 * time.Second
	idemPoll = 20 * time.Millisecond
)

// IdempotencyKeys keeps Idempotency-Key records in Redis, one string per
// key holding an IdempotencyRecord: pending (Status 0) while the first call
// runs, then decided with the answer retries replay. The API door
// (web/api) claims, keeps and releases them around a call.
type IdempotencyKeys struct {
	rdb     redis.UniversalClient
	ttl     time.Duration
	lock    time.Duration
	wait    time.Duration
	poll    time.Duration
	finish  *redis.Script
	release *redis.Script
	count   *prometheus.CounterVec // by outcome
	log     *slog.Logger
}

func newIdempotency(rdb redis.UniversalClient, ttl time.Duration, m *metrics, log *slog.Logger) *IdempotencyKeys {
	if ttl <= 0 {
		ttl = DefaultIdempotencyTTL
	}
	return &IdempotencyKeys{rdb: rdb, ttl: ttl, lock: idemLock, wait: idemWait, poll: idemPoll, count: m.idemKeys, log: log,
		// Both act only while the record is still this call's claim, so a
		// call that outlived its lock never overwrites another's record.
		finish: redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end return false`),
		release: redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1]) end return 0`),
	}
}

// IdempotencyRecord is what Redis holds under a key (JSON; Body is base64
// there, so the replay is byte for byte).
type IdempotencyRecord struct {
	Owner  string `json:"o,omitempty"` // the claim's random token
	Digest string `json:"d"`           // of the route and the signed parameters
	Status int    `json:"s,omitempty"` // 0 while the first call runs
	Type   string `json:"t,omitempty"`
	Body   []byte `json:"b,omitempty"`
}

// Keep stores the decided answer rec under rk for a day, if rk is still
// this call's claim. A failure leaves the claim to lapse rather than freed:
// until it does retries get idempotency_in_progress, which is safer than
// running a balance payment a second time at once.
func (s *IdempotencyKeys) Keep(ctx context.Context, rk, claim string, rec IdempotencyRecord) error {
	done, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode idempotency record: %w", err)
	}
	if err := s.finish.Run(ctx, s.rdb, []string{rk}, claim, done, s.ttl.Milliseconds()).Err(); err != nil && !errors.Is(err, redis.Nil) {
		s.log.Warn("store idempotency record", "err", err)
		s.count.WithLabelValues("unstored").Inc()
		return nil
	}
	s.count.WithLabelValues("stored").Inc()
	return nil
}

// Release frees rk if it is still this call's claim: after a panic, or an
// answer a retry should run for real.
func (s *IdempotencyKeys) Release(ctx context.Context, rk, claim string) {
	s.count.WithLabelValues("released").Inc()
	if err := s.release.Run(ctx, s.rdb, []string{rk}, claim).Err(); err != nil {
		s.log.Warn("release idempotency key", "err", err)
	}
}

// Claim takes rk for this call (nil record, and the claim's value) or
// finds the decided record to replay, waiting for a running call.
func (s *IdempotencyKeys) Claim(ctx context.Context, rk, digest string) (*IdempotencyRecord, string, error) {
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, "", fmt.Errorf("idempotency claim token: %w", err)
	}
	pending, err := json.Marshal(IdempotencyRecord{Owner: hex.EncodeToString(token), Digest: digest})
	if err != nil {
		return nil, "", fmt.Errorf("encode idempotency claim: %w", err)
	}
	deadline := time.Now().Add(s.wait)
	for {
		ok, err := s.rdb.SetNX(ctx, rk, pending, s.lock).Result()
		if err != nil {
			return nil, "", fmt.Errorf("claim idempotency key: %w", err)
		}
		if ok {
			return nil, string(pending), nil
		}
		rec, err := s.load(ctx, rk)
		if err != nil {
			return nil, "", err
		}
		switch {
		case rec == nil: // freed meanwhile: claim again
			continue
		case rec.Digest != digest: // secaudit:not-secret: a digest of the caller's own request
			s.count.WithLabelValues("mismatch").Inc()
			return nil, "", platform.Errorf(platform.KindIdempotencyMismatch, "%s was already used with other parameters", HeaderIdempotencyKey)
		case rec.Status != 0:
			s.count.WithLabelValues("replayed").Inc()
			return rec, "", nil
		case time.Now().After(deadline):
			s.count.WithLabelValues("in_progress").Inc()
			return nil, "", platform.Errorf(platform.KindIdempotencyInProgress, "a request with this %s is still in progress; retry later", HeaderIdempotencyKey)
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-time.After(s.poll):
		}
	}
}

func (s *IdempotencyKeys) load(ctx context.Context, rk string) (*IdempotencyRecord, error) {
	raw, err := s.rdb.Get(ctx, rk).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read idempotency key: %w", err)
	}
	var rec IdempotencyRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("decode idempotency record: %w", err)
	}
	return &rec, nil
}
