// Package config holds the small types the configuration files share, so
// that every family's JSON reads the same way: durations as text ("10s",
// "1m30s") rather than nanoseconds, which no operator writes by hand.
package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that reads and writes itself in JSON as
// time.ParseDuration's text.
type Duration time.Duration

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as text, e.g. "10s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration's text; a bare number is refused, since
// nanoseconds are what the text form is there to avoid.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want text such as \"10s\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}
