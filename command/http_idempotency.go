package command

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// HeaderIdempotencyKey is the optional header that makes a signed merchant
// call safe to retry (DESIGN.md's "retries beyond clientOrderId").
const HeaderIdempotencyKey = "Idempotency-Key"

// HeaderIdempotentReplayed marks an answer replayed from a stored record,
// so a merchant can tell a retry's answer from a fresh one.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// DefaultIdempotencyTTL is how long a decided answer is kept: a day, the
// window DESIGN.md promises.
const DefaultIdempotencyTTL = 24 * time.Hour

const (
	// maxIdempotencyKey bounds the header; the Redis name is its hash anyway.
	maxIdempotencyKey = 255
	// idemLock is how long a claim holds a key while its call runs: longer
	// than any create (provider calls time out well before), so a live call
	// is never run twice; a process that dies mid-call frees its keys then.
	idemLock = 2 * time.Minute
	// idemWait bounds how long a concurrent call with the same key waits
	// for the first one's answer before it gets idempotency_in_progress.
	idemWait = 5 * time.Second
	idemPoll = 20 * time.Millisecond
)

// idempotency keeps Idempotency-Key records in Redis, one string per key
// holding an idemRecord: pending (Status 0) while the first call runs, then
// decided with the answer retries replay.
type idempotency struct {
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

func newIdempotency(rdb redis.UniversalClient, ttl time.Duration, m *metrics, log *slog.Logger) *idempotency {
	if ttl <= 0 {
		ttl = DefaultIdempotencyTTL
	}
	return &idempotency{rdb: rdb, ttl: ttl, lock: idemLock, wait: idemWait, poll: idemPoll, count: m.idemKeys, log: log,
		// Both act only while the record is still this call's claim, so a
		// call that outlived its lock never overwrites another's record.
		finish: redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end return false`),
		release: redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1]) end return 0`),
	}
}

// idemRecord is what Redis holds under a key (JSON; Body is base64 there,
// so the replay is byte for byte).
type idemRecord struct {
	Owner  string `json:"o,omitempty"` // the claim's random token
	Digest string `json:"d"`           // of the route and the signed parameters
	Status int    `json:"s,omitempty"` // 0 while the first call runs
	Type   string `json:"t,omitempty"`
	Body   []byte `json:"b,omitempty"`
}

// idempotent wraps a signed merchant endpoint whose body is a JSON
// parameter set signed like createorder's (create, cancel). Without the
// header it only looks the header up: nothing else, no Redis call.
//
// With it, the call is first authenticated (appid, enabled, sign); one that
// fails is handed to next untouched, which answers it in the usual check
// order and nothing is stored, so no one but the merchant can claim, poison
// or read its keys. Then the key, scoped to the appid, is claimed:
//   - new: next runs, and its answer is stored for a day when it is a
//     decided outcome (2xx, or 4xx but 429); otherwise (5xx, 429) the claim
//     is dropped and a retry runs for real;
//   - decided, same parameters: the stored status and body are replayed,
//     whatever the order's state now, with Idempotent-Replayed: true;
//   - used with other parameters (a digest of the route and the signed
//     parameters without sign differs): 409 idempotency_mismatch;
//   - still running: this call waits (polling, at most idemWait) for the
//     first call's answer and replays it; past that, 409
//     idempotency_in_progress, and the client retries later.
func idempotent(uc *UseCases, next fiber.Handler) fiber.Handler {
	signed, idem := uc.signed, uc.idem
	return func(c *fiber.Ctx) error {
		key := c.Request().Header.Peek(HeaderIdempotencyKey)
		if len(key) == 0 {
			return next(c)
		}
		return idem.serve(c, signed, key, next)
	}
}

func (s *idempotency) serve(c *fiber.Ctx, signed *signedCalls, key []byte, next fiber.Handler) error {
	if !validIdempotencyKey(key) {
		return platform.Errorf(platform.KindInvalidParameter, "header %s must be 1 to %d printable ASCII characters", HeaderIdempotencyKey, maxIdempotencyKey)
	}
	ctx := c.UserContext()
	p, err := ParseJSONParams(c.Body())
	if err != nil {
		return next(c)
	}
	if _, err := signed.authenticate(ctx, signedFormOf(c.Path()), p); err != nil {
		return next(c)
	}
	sum := sha256.Sum256(key)
	rk := schema.IdempotencyKey(p["appid"], hex.EncodeToString(sum[:]))
	digest := paramsDigest(c.Path(), p)
	rec, claim, err := s.claim(ctx, rk, digest)
	if err != nil {
		return err
	}
	if rec != nil {
		return replay(c, rec)
	}
	return s.run(c, rk, claim, digest, next)
}

// run calls next as the key's owner and keeps its answer if it is decided.
func (s *idempotency) run(c *fiber.Ctx, rk, claim, digest string, next fiber.Handler) error {
	bg := context.WithoutCancel(c.UserContext())
	kept := false
	defer func() {
		if !kept { // a panic, or an answer to retry for real: free the key
			s.count.WithLabelValues("released").Inc()
			if err := s.release.Run(bg, s.rdb, []string{rk}, claim).Err(); err != nil {
				s.log.Warn("release idempotency key", "err", err)
			}
		}
	}()
	if err := next(c); err != nil {
		// Rendered here, not after us, so the answer can be stored as sent.
		if err := c.App().ErrorHandler(c, err); err != nil {
			return err
		}
	}
	res := c.Response()
	status := res.StatusCode()
	if status < 200 || status >= 500 || status == fiber.StatusTooManyRequests || (status >= 300 && status < 400) {
		return nil
	}
	done, err := json.Marshal(idemRecord{Digest: digest, Status: status,
		Type: string(res.Header.ContentType()), Body: bytes.Clone(res.Body())})
	if err != nil {
		return fmt.Errorf("encode idempotency record: %w", err)
	}
	kept = true
	if err := s.finish.Run(bg, s.rdb, []string{rk}, claim, done, s.ttl.Milliseconds()).Err(); err != nil && !errors.Is(err, redis.Nil) {
		// The answer stands. The claim is left to lapse rather than freed:
		// until it does retries get idempotency_in_progress, which is
		// safer than running a balance payment a second time at once.
		s.log.Warn("store idempotency record", "err", err)
		s.count.WithLabelValues("unstored").Inc()
		return nil
	}
	s.count.WithLabelValues("stored").Inc()
	return nil
}

// claim takes rk for this call (nil record, and the claim's value) or
// finds the decided record to replay, waiting for a running call.
func (s *idempotency) claim(ctx context.Context, rk, digest string) (*idemRecord, string, error) {
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, "", fmt.Errorf("idempotency claim token: %w", err)
	}
	pending, err := json.Marshal(idemRecord{Owner: hex.EncodeToString(token), Digest: digest})
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

func (s *idempotency) load(ctx context.Context, rk string) (*idemRecord, error) {
	raw, err := s.rdb.Get(ctx, rk).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read idempotency key: %w", err)
	}
	var rec idemRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("decode idempotency record: %w", err)
	}
	return &rec, nil
}

func replay(c *fiber.Ctx, rec *idemRecord) error {
	c.Status(rec.Status)
	if rec.Type != "" {
		c.Set(fiber.HeaderContentType, rec.Type)
	}
	c.Set(HeaderIdempotentReplayed, "true")
	return c.Send(rec.Body)
}

// paramsDigest names what a key was used for: the route and SPEC.md's sign
// base (every parameter but sign and sign_type, canonically ordered), so a
// re-signed identical request matches and any changed value does not.
func paramsDigest(route string, p schema.Params) string {
	h := sha256.New()
	h.Write([]byte(route))
	h.Write([]byte{0})
	h.Write([]byte(schema.SignBase(p)))
	return hex.EncodeToString(h.Sum(nil))
}

func validIdempotencyKey(k []byte) bool {
	if len(k) > maxIdempotencyKey {
		return false
	}
	for _, b := range k {
		if b < 0x20 || b > 0x7e {
			return false
		}
	}
	return true
}

// signedFormOf is the signed form of an idempotent route, so that a key is
// claimed only for a request its handler would authenticate too.
func signedFormOf(path string) schema.SignedForm {
	switch path {
	case "/api/order/cancel":
		return schema.CancelForm
	case "/api/order/refund":
		return schema.RefundForm
	}
	return schema.CreateForm
}
