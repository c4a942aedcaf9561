package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Event is a webhook endpoint's event (docs/events.md): the envelope every
// type shares, its data left raw until the type says what it is.
type Event struct {
	ID        string          `json:"id"` // evt_…, also the webhook-id: deduplicate on it
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Version   string          `json:"version"`
	Data      json.RawMessage `json:"data"`
}

// RefundEventData is the data of order.refunded and refund.failed.
type RefundEventData struct {
	Refund Refund `json:"refund"`
	Order  Order  `json:"order"`
}

// ParseEvent reads an event's envelope; it verifies nothing (see
// Verifier.Event).
func ParseEvent(body []byte) (*Event, error) {
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("paygate: event: %w", err)
	}
	if e.ID == "" || e.Type == "" || len(e.Data) == 0 {
		return nil, errors.New("paygate: event: id, type and data required")
	}
	return &e, nil
}

// Order is the data of an order.* or usdt.* event.
func (e *Event) Order() (*Order, error) {
	var o Order
	if err := json.Unmarshal(e.Data, &o); err != nil {
		return nil, fmt.Errorf("paygate: event %s data: %w", e.Type, err)
	}
	return &o, nil
}

// Refund is the data of order.refunded and refund.failed.
func (e *Event) Refund() (*RefundEventData, error) {
	var d RefundEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, fmt.Errorf("paygate: event %s data: %w", e.Type, err)
	}
	return &d, nil
}

// Event reads and verifies an endpoint's event from the request a
// receiver's handler got: the Standard Webhooks headers with Secret (the
// endpoint's), then the envelope. Answer any 2xx after it.
func (v Verifier) Event(r *http.Request) (*Event, error) {
	if v.Secret == "" {
		return nil, errors.New("paygate: event: Verifier.Secret (the endpoint's) required")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhook+1))
	if err != nil {
		return nil, fmt.Errorf("paygate: event: read body: %w", err)
	}
	if len(body) > maxWebhook {
		return nil, errors.New("paygate: event: body too large")
	}
	if err := v.VerifyHeaders(r.Header, body); err != nil {
		return nil, err
	}
	return ParseEvent(body)
}
