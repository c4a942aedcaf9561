package events

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

// Add saves a new endpoint of ep.AppID (URL, Types, Description; enabled,
// with a fresh secret) after checking it and its URL, with audit entry e.
func (s *Store) Add(ctx context.Context, ep Endpoint, e audit.Entry) (Endpoint, error) {
	if err := s.checkAll(ctx, ep); err != nil {
		return Endpoint{}, err
	}
	now := s.cfg.Now().UTC().Truncate(time.Millisecond)
	ep.ID, ep.Secret, ep.Enabled, ep.Created, ep.Updated = newEndpointID(), newSecret(), true, now, now
	ep.PrevSecret, ep.PrevUntil, ep.DisabledWhy, ep.DisabledAt = "", time.Time{}, "", time.Time{}
	e.Action = ActionAdd
	if err := s.write(ctx, ep.AppID, ep.ID, ep.encode(), "", entryOf(e, ep)); err != nil {
		return Endpoint{}, err
	}
	return ep, nil
}

// Change is what Update changes; a nil field stays as it is.
type Change struct {
	URL         *string
	Types       *[]Type
	Description *string
	Enabled     *bool
}

// Update changes endpoint id of appid. Enabling it again clears why the
// gateway disabled it.
func (s *Store) Update(ctx context.Context, appid, id string, c Change, e audit.Entry) (Endpoint, error) {
	ep, raw, err := s.get(ctx, appid, id)
	if err != nil {
		return Endpoint{}, err
	}
	if c.URL != nil {
		ep.URL = *c.URL
	}
	if c.Types != nil {
		ep.Types = *c.Types
	}
	if c.Description != nil {
		ep.Description = *c.Description
	}
	if c.Enabled != nil {
		ep.Enabled = *c.Enabled
		if ep.Enabled {
			ep.DisabledWhy, ep.DisabledAt = "", time.Time{}
		}
	}
	if err := s.checkAll(ctx, ep); err != nil {
		return Endpoint{}, err
	}
	ep.Updated = s.cfg.Now().UTC().Truncate(time.Millisecond)
	e.Action = ActionUpdate
	return ep, s.write(ctx, appid, id, ep.encode(), raw, entryOf(e, ep))
}

// Rotate gives endpoint id a new secret; the old one signs too for
// overlap (0: Config.Overlap), so receivers switch without a failure.
func (s *Store) Rotate(ctx context.Context, appid, id string, overlap time.Duration, e audit.Entry) (Endpoint, error) {
	if overlap == 0 {
		overlap = s.cfg.Overlap
	}
	if overlap < 0 || overlap > 30*24*time.Hour {
		return Endpoint{}, platform.Errorf(platform.KindInvalidParameter, "the overlap is 0 to 720 hours")
	}
	ep, raw, err := s.get(ctx, appid, id)
	if err != nil {
		return Endpoint{}, err
	}
	now := s.cfg.Now().UTC().Truncate(time.Millisecond)
	ep.PrevSecret, ep.PrevUntil, ep.Secret, ep.Updated = ep.Secret, now.Add(overlap), newSecret(), now
	e.Action = ActionRotate
	e.Details = withDetail(e.Details, "grace", overlap.String())
	return ep, s.write(ctx, appid, id, ep.encode(), raw, entryOf(e, ep))
}

// Remove deletes endpoint id of appid; its deliveries' history stays.
func (s *Store) Remove(ctx context.Context, appid, id string, e audit.Entry) error {
	ep, raw, err := s.get(ctx, appid, id)
	if err != nil {
		return err
	}
	e.Action = ActionRemove
	return s.write(ctx, appid, id, "", raw, entryOf(e, ep))
}

// Disable turns endpoint id off by the gateway's own decision (why, such
// as "failing"), as the system's audit entry. Disabling one already off
// changes nothing.
func (s *Store) Disable(ctx context.Context, appid, id, why string) (Endpoint, error) {
	ep, raw, err := s.get(ctx, appid, id)
	if err != nil || !ep.Enabled {
		return ep, err
	}
	now := s.cfg.Now().UTC().Truncate(time.Millisecond)
	ep.Enabled, ep.DisabledWhy, ep.DisabledAt, ep.Updated = false, why, now, now
	e := audit.Entry{At: now, ActorID: "gateway", Realm: audit.RealmSystem, Action: ActionDisable, Source: "gateway",
		Details: map[string]string{"reason": why}}
	return ep, s.write(ctx, appid, id, ep.encode(), raw, entryOf(e, ep))
}

// checkAll is check, as a 400 naming what is wrong, then the URL's
// address rules.
func (s *Store) checkAll(ctx context.Context, ep Endpoint) error {
	if err := ep.check(); err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	if err := s.urls.Check(ctx, ep.URL); err != nil {
		return &platform.Error{Kind: platform.KindInvalidParameter, Msg: err.Error(), Err: err}
	}
	return nil
}

// entryOf completes e for endpoint ep: its target, merchant and settings
// (never its secret).
func entryOf(e audit.Entry, ep Endpoint) audit.Entry {
	e.Target, e.AppID = "webhook_endpoint:"+ep.ID, ep.AppID
	e.Details = withDetail(e.Details, "url", clip(ep.URL, 200), "types", clip(ep.TypesText(), 200),
		"state", strconv.FormatBool(ep.Enabled))
	return e
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
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
