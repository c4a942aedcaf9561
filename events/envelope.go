package events

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Event is the body every endpoint receives:
// {"id","type","created_at","version","data"}. The id is also the
// webhook-id header, the same on every attempt and every replay, so a
// receiver drops what it has seen.
type Event struct {
	ID      string          `json:"id"`
	Type    Type            `json:"type"`
	Created time.Time       `json:"created_at"`
	Version string          `json:"version"`
	Data    json.RawMessage `json:"data"`
}

// New is the event of type t about source (what it was derived from: a
// stream entry's id, a refund id, a payout id and its state), with data the
// object as the API shows it. The id is derived from t and source, so
// deriving it again after a crash gives the same event, never a second.
func New(t Type, source string, at time.Time, data any) (Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	return Event{ID: ID(t, source), Type: t, Created: at.UTC().Truncate(time.Second), Version: Version, Data: raw}, nil
}

// ID is the id of the event of type t derived from source.
func ID(t Type, source string) string {
	h := sha256.Sum256([]byte(string(t) + "\x00" + source))
	return "evt_" + hex.EncodeToString(h[:12])
}

// Body is the JSON sent, exactly the bytes signed.
func (e Event) Body() ([]byte, error) { return json.Marshal(e) }
