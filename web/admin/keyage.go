package admin

import (
	"slices"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
)

// keyAge is how old one of a merchant's credentials is: what an operator
// looks at to ask a merchant to rotate a key that has lived too long.
type keyAge struct {
	Name  string    // message id of the credential
	Since time.Time // issued
	AgeID string    // message id of the age: key_age_new, _hours, _days
	N     int
}

// keyAges reads each credential's issue time from the account (stamped by
// every rotation, console or CLI alike, and by the first webhook secret an
// old account is given at its first webhook). An account rotated before the
// stamps were kept falls back to the newest rotation in its history, and
// one never rotated to its creation.
func keyAges(a *merchant.Account, hist []audit.Row, now time.Time) []keyAge {
	keys := []struct {
		name, action string
		at           time.Time
	}{
		{"key_api", "merchant.rotate_key", a.KeyRotatedAt},
		{"key_query", "merchant.rotate_query_key", a.QueryKeyRotatedAt},
		{"key_webhook", "merchant.rotate_webhook_secret", a.WebhookSecretRotatedAt},
	}
	out := make([]keyAge, 0, len(keys))
	for _, k := range keys {
		since := k.at
		for _, r := range hist { // newest first
			if since.IsZero() && r.Action == k.action {
				since = r.At
			}
		}
		if since.IsZero() {
			since = a.CreatedAt
		}
		ka := keyAge{Name: k.name, Since: since}
		switch d := now.Sub(since); {
		case d < time.Hour:
			ka.AgeID = "key_age_new"
		case d < 48*time.Hour:
			ka.AgeID, ka.N = "key_age_hours", int(d/time.Hour)
		default:
			ka.AgeID, ka.N = "key_age_days", int(d/(24*time.Hour))
		}
		out = append(out, ka)
	}
	return out
}

// apiKeyState is the merchant page's one sentence about the API key: when
// it was last rotated and, while the old key still works, until when. Both
// come from the account (the rotation stamp every rotation writes, console
// or CLI), so the sentence never says "never rotated" beside an old key
// that is still valid.
type apiKeyState struct {
	MsgID   string    // merchant_key_never, merchant_key_rotated_at, merchant_key_rotated_grace[_unknown]
	At      time.Time // the last rotation (zero: never, or before the stamps were kept)
	OldTill time.Time // the old key works until then (zero: it does not)
}

// rotateActions are the audit actions of an API key rotation, by the
// operator's CLI or console and by the merchant's Developers page.
var rotateActions = []string{"merchant.rotate_key", "merchant.rotate_api_key"}

func apiKeyOf(a *merchant.Account, hist []audit.Row, now time.Time) apiKeyState {
	s := apiKeyState{At: a.KeyRotatedAt}
	for _, r := range hist { // newest first
		if s.At.IsZero() && slices.Contains(rotateActions, r.Action) {
			s.At = r.At
		}
	}
	if a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) {
		s.OldTill = a.PrevKeyTill
	}
	switch {
	case !s.OldTill.IsZero() && s.At.IsZero(): // rotated before the stamps, its entry past the history's page
		s.MsgID = "merchant_key_rotated_grace_unknown"
	case !s.OldTill.IsZero():
		s.MsgID = "merchant_key_rotated_grace"
	case !s.At.IsZero():
		s.MsgID = "merchant_key_rotated_at"
	default:
		s.MsgID = "merchant_key_never"
	}
	return s
}
