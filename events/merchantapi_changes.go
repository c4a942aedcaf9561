package events

import (
	"context"
	"strconv"
	"time"

	"github.com/paygate/gateway/audit"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// The changes' own parameters.
var (
	callCreate = Call{Required: []string{"url"}, Optional: []string{"types", "description"}}
	callUpdate = Call{Optional: []string{"url", "types", "description", "enabled"}}
	callRotate = Call{Optional: []string{"overlap"}}
	callDelete = Call{}
	callReplay = Call{Required: []string{"since"}}
	callTest   = Call{}
)

// Create adds an endpoint (url, types: a comma list or "*", description);
// the answer is the one read that carries its secret besides a rotation's.
func (a *API) Create(ctx context.Context, p schema.Params, source string) (Endpoint, error) {
	acct, e, release, err := a.admitChange(ctx, p, callCreate, source)
	if err != nil {
		return Endpoint{}, err
	}
	types, err := parseTypesParam(p["types"])
	if err != nil {
		release()
		return Endpoint{}, err
	}
	ep, err := a.store.Add(ctx, Endpoint{AppID: acct.AppID, URL: p["url"], Types: types, Description: p["description"]}, e)
	return settle(ep, err, release)
}

// Update changes endpoint id's url, types, description or enabled (only
// those given).
func (a *API) Update(ctx context.Context, id string, p schema.Params, source string) (Endpoint, error) {
	acct, e, release, err := a.admitChange(ctx, p, callUpdate, source)
	if err != nil {
		return Endpoint{}, err
	}
	c, err := changeOf(p)
	if err != nil {
		release()
		return Endpoint{}, err
	}
	ep, err := a.store.Update(ctx, acct.AppID, id, c, e)
	return settle(ep, err, release)
}

// Rotate gives endpoint id a new secret, answered once; the old one signs
// too for overlap hours (absent: the default).
func (a *API) Rotate(ctx context.Context, id string, p schema.Params, source string) (Endpoint, error) {
	acct, e, release, err := a.admitChange(ctx, p, callRotate, source)
	if err != nil {
		return Endpoint{}, err
	}
	var overlap time.Duration
	if v := p["overlap"]; v != "" {
		h, perr := strconv.Atoi(v)
		if perr != nil || h < 0 || h > 720 {
			release()
			return Endpoint{}, platform.Errorf(platform.KindInvalidParameter, "overlap is whole hours from 0 to 720")
		}
		overlap = time.Duration(h) * time.Hour
		if h == 0 {
			overlap = time.Nanosecond // at once: 0 would mean the default
		}
	}
	ep, err := a.store.Rotate(ctx, acct.AppID, id, overlap, e)
	return settle(ep, err, release)
}

// Delete removes endpoint id.
func (a *API) Delete(ctx context.Context, id string, p schema.Params, source string) error {
	acct, e, release, err := a.admitChange(ctx, p, callDelete, source)
	if err != nil {
		return err
	}
	_, err = settle(struct{}{}, a.store.Remove(ctx, acct.AppID, id, e), release)
	return err
}

// Replay makes every failed delivery of endpoint id created since (RFC
// 3339) due now, and says how many.
func (a *API) Replay(ctx context.Context, id string, p schema.Params, source string) (int, error) {
	acct, e, release, err := a.admitChange(ctx, p, callReplay, source)
	if err != nil {
		return 0, err
	}
	n, err := a.replay(ctx, acct.AppID, id, p["since"], e)
	return settle(n, err, release)
}

func (a *API) replay(ctx context.Context, appid, id, since string, e audit.Entry) (int, error) {
	t, err := time.Parse(time.RFC3339, since)
	if err != nil {
		return 0, platform.Errorf(platform.KindInvalidParameter, "since must be an RFC 3339 time such as 2026-11-28T09:00:00Z")
	}
	ep, err := a.store.Get(ctx, appid, id)
	if err != nil {
		return 0, err
	}
	if err := CheckReplaySince(ep, t, a.cfg.Now()); err != nil {
		return 0, err
	}
	if a.deliveries == nil {
		return 0, ErrNoDeliveries
	}
	n, err := a.deliveries.ReplaySince(ctx, appid, ep, t)
	if err != nil {
		return 0, err
	}
	e.Action, e.Details = ActionReplay, map[string]string{"note": "since " + t.UTC().Format(time.RFC3339), "count": strconv.Itoa(n)}
	return n, a.store.Record(ctx, ep, e)
}

// Test sends endpoint id a test event (endpoint.test) as a real delivery.
func (a *API) Test(ctx context.Context, id string, p schema.Params, source string) (Delivery, error) {
	acct, e, release, err := a.admitChange(ctx, p, callTest, source)
	if err != nil {
		return Delivery{}, err
	}
	d, err := a.test(ctx, acct.AppID, id, e)
	return settle(d, err, release)
}

func (a *API) test(ctx context.Context, appid, id string, e audit.Entry) (Delivery, error) {
	ep, err := a.store.Get(ctx, appid, id)
	if err != nil {
		return Delivery{}, err
	}
	if a.deliveries == nil {
		return Delivery{}, ErrNoDeliveries
	}
	d, err := a.deliveries.SendTest(ctx, appid, ep)
	if err != nil {
		return Delivery{}, err
	}
	e.Action, e.Details = ActionTest, map[string]string{"ref": d.ID}
	return d, a.store.Record(ctx, ep, e)
}

// parseTypesParam is ParseTypes as a 400.
func parseTypesParam(s string) ([]Type, error) {
	t, err := ParseTypes(s)
	if err != nil {
		return nil, platform.Errorf(platform.KindInvalidParameter, "types: %s", err.Error())
	}
	return t, nil
}

// changeOf reads an update's parameters; an absent one stays as it is.
func changeOf(p schema.Params) (Change, error) {
	var c Change
	if v, ok := p["url"]; ok {
		c.URL = &v
	}
	if v, ok := p["description"]; ok {
		c.Description = &v
	}
	if v, ok := p["types"]; ok {
		t, err := parseTypesParam(v)
		if err != nil {
			return Change{}, err
		}
		c.Types = &t
	}
	if v, ok := p["enabled"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Change{}, platform.Errorf(platform.KindInvalidParameter, "enabled is true or false")
		}
		c.Enabled = &b
	}
	return c, nil
}
