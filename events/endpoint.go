package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Endpoint is one URL of a merchant's that receives the events it
// subscribed to, signed with a secret of its own. The secret is never in
// an audit entry or a log; the console shows it to its developers.
type Endpoint struct {
	ID          string    `json:"id"`
	AppID       string    `json:"appid"`
	URL         string    `json:"url"`
	Types       []Type    `json:"types,omitempty"` // none: every type
	Description string    `json:"description,omitempty"`
	Enabled     bool      `json:"enabled"`
	Secret      string    `json:"secret"`
	PrevSecret  string    `json:"prev_secret,omitempty"`
	PrevUntil   time.Time `json:"prev_until,omitzero"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	// DisabledWhy is why the gateway disabled it by itself ("failing": no
	// delivery succeeded for three days); empty when a person did, or when
	// it is enabled.
	DisabledWhy string    `json:"disabled_why,omitempty"`
	DisabledAt  time.Time `json:"disabled_at,omitzero"`
}

// Wants reports whether the endpoint takes events of type t now. A test
// event goes to the endpoint it was asked for whatever it subscribed to.
func (e Endpoint) Wants(t Type) bool {
	return e.Enabled && (len(e.Types) == 0 || slices.Contains(e.Types, t))
}

// Secrets are what its events are signed with at now: the current secret,
// and during a rotation's overlap the previous one too (Standard Webhooks
// lets webhook-signature carry both), so a receiver rolls over without a
// failed verification.
func (e Endpoint) Secrets(now time.Time) []string {
	if e.PrevSecret != "" && now.Before(e.PrevUntil) {
		return []string{e.Secret, e.PrevSecret}
	}
	return []string{e.Secret}
}

// TypesText is the subscription as ParseTypes reads it ("*" for all).
func (e Endpoint) TypesText() string {
	if len(e.Types) == 0 {
		return "*"
	}
	s := make([]string, len(e.Types))
	for i, t := range e.Types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

// Bounds of an endpoint's text.
const (
	maxURL         = 2048
	maxDescription = 256
)

// check refuses what no endpoint may be, before any address rule.
func (e Endpoint) check() error {
	switch {
	case e.URL == "" || len(e.URL) > maxURL:
		return fmt.Errorf("the URL must be 1 to %d characters", maxURL)
	case !utf8.ValidString(e.Description) || utf8.RuneCountInString(e.Description) > maxDescription:
		return fmt.Errorf("the description is at most %d characters", maxDescription)
	}
	for _, t := range e.Types {
		if !Known(t) {
			return fmt.Errorf("%q is not an event type", string(t))
		}
	}
	return nil
}

func (e Endpoint) encode() string {
	b, _ := json.Marshal(e) // a struct of strings, times and bools always marshals
	return string(b)
}

// DecodeEndpoint reads an endpoint as the store keeps it (one field of
// EndpointsKey's hash), for the engine, which reads it with a delivery's
// claim instead of asking the store at every attempt.
func DecodeEndpoint(raw string) (Endpoint, error) { return decodeEndpoint(raw) }

func decodeEndpoint(raw string) (Endpoint, error) {
	var e Endpoint
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		return Endpoint{}, fmt.Errorf("read webhook endpoint: %w", err)
	}
	return e, nil
}
