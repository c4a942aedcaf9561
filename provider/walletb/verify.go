package walletb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paygate/gateway/provider"
)

// maxNotifyBody bounds a notification: the provider's are about 1 KiB.
const maxNotifyBody = 64 << 10

// Event is a notification's envelope.
type Event struct {
	ID           string   `json:"id"`
	CreateTime   string   `json:"create_time"`
	EventType    string   `json:"event_type"`
	ResourceType string   `json:"resource_type"`
	Summary      string   `json:"summary"`
	Resource     Resource `json:"resource"`
}

// Event types. The live provider notifies payments only with
// TRANSACTION.SUCCESS; TRANSACTION.PAYERROR is the sandbox's, so that a
// tester's Fail reaches the order as it would by a query (see Simulator).
const (
	EventSuccess  = "TRANSACTION.SUCCESS"
	EventPayError = "TRANSACTION.PAYERROR"
)

// Verify proves a notification and says what it means: the signature
// headers (serial, signature over time stamp, nonce and body, replay
// window) first, then the envelope, then the resource's decryption and the
// transaction it holds, which must be ours.
func (a *Adapter) Verify(ctx context.Context, r *provider.Request) (provider.Notification, error) {
	if len(r.Body) > maxNotifyBody {
		return provider.Notification{}, fmt.Errorf("wallet_b notification body over %d bytes: %w", maxNotifyBody, provider.ErrMalformed)
	}
	h := readSigHeaders(r.Header, a.cfg.HeaderPrefix)
	if err := a.v.verify(ctx, h, r.Body); err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_b notification: %w", err)
	}
	var ev Event
	if err := json.Unmarshal(r.Body, &ev); err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_b notification: %w", errors.Join(provider.ErrMalformed, err))
	}
	if !strings.HasPrefix(ev.EventType, "TRANSACTION.") || ev.Resource.OriginalType != "transaction" {
		return provider.Notification{}, fmt.Errorf("wallet_b notification of type %q/%q: %w", ev.EventType, ev.Resource.OriginalType, provider.ErrMalformed)
	}
	plain, err := ev.Resource.decrypt(a.apiv3)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_b notification: %w", err)
	}
	n, err := a.transaction(plain)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("wallet_b notification: %w", err)
	}
	for k, v := range map[string]string{
		"event_id": ev.ID, "event_type": ev.EventType, "create_time": ev.CreateTime, "summary": ev.Summary,
		"serial": h.Serial, "timestamp": h.Timestamp, "nonce": h.Nonce,
	} {
		n.Fields[k] = v
	}
	return n, nil
}

// Reply is what the provider expects: 204 without a body for a notification
// we have; for a refused one a 4xx with a JSON code and message (401 for a
// signature, 400 for the rest); 500 for our own trouble, so that it comes
// back.
func (a *Adapter) Reply(_ provider.Notification, err error) provider.Reply {
	switch {
	case err == nil:
		return provider.Reply{Status: http.StatusNoContent}
	case errors.Is(err, provider.ErrSignature):
		return jsonReply(http.StatusUnauthorized, "SIGN_ERROR", "signature does not verify")
	case errors.Is(err, provider.ErrMalformed):
		return jsonReply(http.StatusBadRequest, "PARAM_ERROR", "notification is malformed")
	default:
		return jsonReply(http.StatusInternalServerError, "FAIL", "not processed, send again")
	}
}

func jsonReply(status int, code, message string) provider.Reply {
	b, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, message})
	return provider.Reply{Status: status, ContentType: "application/json", Body: string(b)}
}
