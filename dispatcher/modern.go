package dispatcher

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// The modern form of a webhook: SPEC.md's form body and MD5 sign
// stay exactly as they are, and three headers in the style of the Standard
// Webhooks specification let a receiver verify without knowing the form
// rules.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// EventID is the webhook-id of an order's paid webhook (schema.WebhookEventID).
func EventID(paymentID string) string { return schema.WebhookEventID(paymentID) }

// modernHeaders are the three headers of one attempt: its id, its time in
// unix seconds, and one v1 signature per secret (during a rotation's grace
// period two, separated by a space, as the specification allows).
type modernHeaders struct {
	id, timestamp, signature string
}

// signModern signs id.timestamp.body with each secret.
func signModern(id string, at time.Time, body string, secrets []string) (modernHeaders, error) {
	if len(secrets) == 0 {
		return modernHeaders{}, errors.New("the merchant has no webhook secret")
	}
	h := modernHeaders{id: id, timestamp: strconv.FormatInt(at.Unix(), 10)}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return modernHeaders{}, err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(h.id + "." + h.timestamp + "." + body))
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	h.signature = strings.Join(sigs, " ")
	return h, nil
}

// secretKey is the HMAC key a whsec_ secret stands for: the bytes its
// base64 encodes, not the text.
func secretKey(secret string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, merchant.WebhookSecretPrefix))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("stored webhook secret is not whsec_ and base64")
	}
	return b, nil
}
