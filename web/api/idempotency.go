package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// HeaderIdempotentReplayed marks an answer replayed from a stored record,
// so a merchant can tell a retry's answer from a fresh one.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// maxIdempotencyKey bounds the header; the Redis name is its hash anyway.
const maxIdempotencyKey = 255

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
//   - still running: this call waits (polling, at most 5 s) for the
//     first call's answer and replays it; past that, 409
//     idempotency_in_progress, and the client retries later.
func idempotent(uc *command.UseCases, next fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := c.Request().Header.Peek(command.HeaderIdempotencyKey)
		if len(key) == 0 {
			return next(c)
		}
		return serveIdempotent(c, uc, key, next)
	}
}

func serveIdempotent(c *fiber.Ctx, uc *command.UseCases, key []byte, next fiber.Handler) error {
	if !validIdempotencyKey(key) {
		return platform.Errorf(platform.KindInvalidParameter, "header %s must be 1 to %d printable ASCII characters", command.HeaderIdempotencyKey, maxIdempotencyKey)
	}
	ctx := c.UserContext()
	p, err := command.ParseJSONParams(c.Body())
	if err != nil {
		return next(c)
	}
	if err := uc.Authenticate(ctx, signedFormOf(c.Path()), p); err != nil {
		return next(c)
	}
	sum := sha256.Sum256(key)
	rk := schema.IdempotencyKey(p["appid"], hex.EncodeToString(sum[:]))
	digest := paramsDigest(c.Path(), p)
	keys := uc.IdempotencyKeys()
	rec, claim, err := keys.Claim(ctx, rk, digest)
	if err != nil {
		return err
	}
	if rec != nil {
		return replay(c, rec)
	}
	return run(c, keys, rk, claim, digest, next)
}

// run calls next as the key's owner and keeps its answer if it is decided.
func run(c *fiber.Ctx, keys *command.IdempotencyKeys, rk, claim, digest string, next fiber.Handler) error {
	bg := context.WithoutCancel(c.UserContext())
	kept := false
	defer func() {
		if !kept { // a panic, or an answer to retry for real: free the key
			keys.Release(bg, rk, claim)
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
	rec := command.IdempotencyRecord{Digest: digest, Status: status,
		Type: string(res.Header.ContentType()), Body: bytes.Clone(res.Body())}
	if err := keys.Keep(bg, rk, claim, rec); err != nil {
		return err
	}
	kept = true
	return nil
}

func replay(c *fiber.Ctx, rec *command.IdempotencyRecord) error {
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
