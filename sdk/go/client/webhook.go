package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers every webhook of the gateway carries: the
// paid and refund webhooks (signed with the merchant's webhook secret) and
// the endpoints' events (signed with the endpoint's secret).
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// DefaultTolerance is how far a webhook-timestamp may be from the
// receiver's clock: a captured webhook replayed later is refused.
const DefaultTolerance = 5 * time.Minute

// Why a webhook is refused (errors.Is).
var (
	ErrMissingHeader = errors.New("paygate: webhook: a signature header is missing")
	ErrTimestamp     = errors.New("paygate: webhook: timestamp malformed or too far from the clock")
	ErrSignature     = errors.New("paygate: webhook: signature does not match")
	ErrSecret        = errors.New("paygate: webhook: secret is not whsec_ followed by base64")
)

// Verifier checks the webhooks the gateway sends. APIKey checks SPEC.md's
// MD5 sign of the paid and refund webhooks' form; Secret (whsec_…) checks
// the Standard Webhooks headers. Set both for the paid webhook: the MD5
// form alone cannot tell a callback from a create the merchant signed
// re-sent as one, the headers' secret signs nothing else.
type Verifier struct {
	APIKey string
	Secret string
	// Tolerance is the accepted distance of webhook-timestamp from Now;
	// 0 is DefaultTolerance.
	Tolerance time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// VerifyHeaders checks the webhook-id, webhook-timestamp and
// webhook-signature of a webhook against its raw body, as received (before
// any parsing): the timestamp within the tolerance, and one of the
// signature's space-separated v1 entries (two during a secret's rotation)
// the HMAC-SHA256 of id.timestamp.body keyed by the secret's bytes.
// Comparisons are constant-time.
func (v Verifier) VerifyHeaders(h http.Header, body []byte) error {
	key, err := secretKey(v.Secret)
	if err != nil {
		return err
	}
	id, ts, sigs := h.Get(HeaderWebhookID), h.Get(HeaderWebhookTimestamp), h.Get(HeaderWebhookSignature)
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeader
	}
	if err := v.checkTime(ts); err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrSignature
}

// checkTime refuses a timestamp that is not unix seconds or is further
// from the clock than the tolerance, either way.
func (v Verifier) checkTime(ts string) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrTimestamp, ts)
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	tolerance := v.Tolerance
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := now().Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: %s off", ErrTimestamp, d.Round(time.Second))
	}
	return nil
}

// secretKey is the HMAC key a whsec_ secret stands for: the bytes its
// base64 encodes, not its text.
func secretKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, ErrSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) == 0 {
		return nil, ErrSecret
	}
	return key, nil
}
