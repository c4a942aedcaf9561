package access

import (
	"context"
	_ "embed"
	"fmt"
	"time"
	_ "time/tzdata" // the zones a person may choose, whatever the host has

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/zone.lua
	zoneLua    string
	zoneScript = redis.NewScript(zoneLua)
)

// ErrBadZone is a time zone that is not an IANA name.
var ErrBadZone = platform.Errorf(platform.KindInvalidParameter, "the time zone must be an IANA name such as Asia/Shanghai or UTC")

// ParseZone reads an IANA zone name; "" and "UTC" are UTC. "Local" is
// refused: it is the server's zone, not one a person chose.
func ParseZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if len(name) > 64 || name == "Local" {
		return nil, ErrBadZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrBadZone
	}
	return loc, nil
}

// SetTimeZone keeps the zone s's person reads console times in, with
// their account: every session of theirs shows it from the next page. A
// preference of one's own, so not audited.
func (a *Accounts) SetTimeZone(ctx context.Context, s *Session, zone string) error {
	loc, err := ParseZone(zone)
	if err != nil {
		return err
	}
	name := loc.String()
	if loc == time.UTC {
		name = ""
	}
	n, err := zoneScript.Run(ctx, a.rdb, []string{userKey(s.UserID)}, name).Int()
	if err != nil {
		return fmt.Errorf("set time zone: %w", err)
	}
	if n == 0 {
		return ErrNoSession
	}
	return nil
}
