package payout

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Audit actions of destinations.
const (
	ActionDestinationAdd    = "payout.destination_add"
	ActionDestinationRemove = "payout.destination_remove"
)

// AddDestination saves d (checked) for d.AppID, usable after the
// cooling-off period, with who saved it (changer, the actor's key, for
// maker-checker) and audit entry e, in one step. The caller has checked the
// owner's TOTP.
func (s *Store) AddDestination(ctx context.Context, d Destination, changer string, e audit.Entry) (Destination, error) {
	if err := d.Check(); err != nil {
		return Destination{}, err
	}
	now := s.now().Truncate(time.Millisecond)
	d.ID, d.Created, d.Usable, d.Removed = newID(d.AppID, now), now, now.Add(s.cfg.CoolingOff), time.Time{}
	e.Target, e.AppID = "payout_destination:"+d.ID, d.AppID
	e.Details = withDetail(e.Details, "kind", string(d.Kind), "until", d.Usable.UTC().Format(time.RFC3339))
	if err := s.saveDestination(ctx, d, "", changer, e); err != nil {
		return Destination{}, err
	}
	return d, nil
}

// RemoveDestination marks destination id of appid removed: no payout goes
// to it again; the payouts that named it keep naming it.
func (s *Store) RemoveDestination(ctx context.Context, appid, id, changer string, e audit.Entry) error {
	old, raw, err := s.destination(ctx, appid, id)
	if err != nil {
		return err
	}
	if !old.Removed.IsZero() {
		return nil
	}
	d := old
	d.Removed = s.now().Truncate(time.Millisecond)
	e.Target, e.AppID = "payout_destination:"+id, appid
	e.Details = withDetail(e.Details, "kind", string(d.Kind))
	return s.saveDestination(ctx, d, raw, changer, e)
}

func (s *Store) saveDestination(ctx context.Context, d Destination, prev, changer string, e audit.Entry) error {
	sh := schema.HomeShard(d.AppID)
	args, err := audit.ScriptArgs([]any{s.now().UnixMilli(), d.ID, d.encode(), prev, changer, s.cfg.MaxDestinations}, e)
	if err != nil {
		return err
	}
	keys := []string{schema.PayoutDestinationsKey(d.AppID), schema.PayoutChangesKey(d.AppID),
		schema.PayoutEventsKey(sh), schema.AuditKey(sh.Tag())}
	res, err := s.destLua.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return fmt.Errorf("save payout destination %s: %w", d.ID, err)
	}
	switch res[0] {
	case 0:
		return platform.Errorf(platform.KindConflict, "a merchant keeps at most %d payout destinations", s.cfg.MaxDestinations)
	case 6:
		return platform.Errorf(platform.KindConflict, "the destination changed meanwhile; reload and try again")
	}
	return nil
}

// Destinations lists appid's destinations, newest first, removed ones too
// (the caller shows or hides them).
func (s *Store) Destinations(ctx context.Context, appid string) ([]Destination, error) {
	all, err := s.rdb.HGetAll(ctx, schema.PayoutDestinationsKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read payout destinations: %w", err)
	}
	out := make([]Destination, 0, len(all))
	for _, raw := range all {
		d, err := decodeDestination(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.After(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID > out[j].ID
	})
	return out, nil
}

// destination reads destination id of appid (404 when another merchant's
// or none), with its stored form for a compare-and-set.
func (s *Store) destination(ctx context.Context, appid, id string) (Destination, string, error) {
	raw, err := s.rdb.HGet(ctx, schema.PayoutDestinationsKey(appid), id).Result()
	if err != nil {
		if isNil(err) {
			return Destination{}, "", platform.Errorf(platform.KindNotFound, "no such payout destination")
		}
		return Destination{}, "", fmt.Errorf("read payout destination: %w", err)
	}
	d, err := decodeDestination(raw)
	return d, raw, err
}

// NoteChange records that changer (an operator's key) changed appid's
// payout settings now: for CheckerWindow it may not decide appid's payouts.
func (s *Store) NoteChange(ctx context.Context, appid, changer string) error {
	if err := s.rdb.ZAdd(ctx, schema.PayoutChangesKey(appid), redisZ(s.now(), changer)).Err(); err != nil {
		return fmt.Errorf("note payout settings change: %w", err)
	}
	return nil
}

func withDetail(d map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(d)+len(kv)/2)
	for k, v := range d {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
