package selfservice

import (
	"context"
	"strconv"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
)

// Endpoints are the use cases of the merchant's webhook endpoints on the
// Webhooks page: reading them is the page's read permission; adding,
// changing and removing one is a settings change, rotating its secret a
// key rotation (adding, changing and rotating with TOTP enrolled, as the
// callback URL and the keys), and a test event, a resend or a replay a resend (each
// granted to owners and developers). The store writes each change's audit
// entry in its own script; a test, a resend or a replay is appended after
// the engine took it.
type Endpoints struct {
	store      *events.Store             // nil: this node does not serve them
	deliveries events.EndpointDeliveries // nil: no engine wired, deliveries unavailable
	strong     secondFactor              // where events go, and their secret, need TOTP
	now        func() time.Time
}

// errNoEndpoints answers when this node has no endpoint store.
var errNoEndpoints = platform.Errorf(platform.KindUnavailable, "webhook endpoints are not served by this node")

// NeedsTOTP reports whether a's role may add, change or rotate endpoints
// but a's person has no TOTP enrolled, which they need for it: the page
// then offers none of those forms and says how to set TOTP up.
func (s *Endpoints) NeedsTOTP(ctx context.Context, a access.Actor) (bool, error) {
	if !a.Can(access.RealmMerchant, access.PermSettingsWrite) && !a.Can(access.RealmMerchant, access.PermKeysRotate) {
		return false, nil
	}
	ok, err := s.strong.enrolled(ctx, a)
	return !ok, err
}

// Served reports whether the endpoints and their deliveries are served
// here, for the page to say so rather than fail.
func (s *Endpoints) Served() (endpoints, deliveries bool) {
	return s.store != nil, s.store != nil && s.deliveries != nil
}

// List is the merchant's endpoints without their secrets: a secret is
// shown only in the answer of the add or the rotation that made it.
func (s *Endpoints) List(ctx context.Context, a access.Actor) ([]events.Endpoint, error) {
	appid, err := s.may(a, access.PermWebhooksRead)
	if err != nil {
		return nil, err
	}
	eps, err := s.store.List(ctx, appid)
	for i := range eps {
		eps[i] = withoutSecrets(eps[i])
	}
	return eps, err
}

// Get is one endpoint of the merchant's, without its secrets (404 for
// another merchant's).
func (s *Endpoints) Get(ctx context.Context, a access.Actor, id string) (events.Endpoint, error) {
	appid, err := s.may(a, access.PermWebhooksRead)
	if err != nil {
		return events.Endpoint{}, err
	}
	ep, err := s.store.Get(ctx, appid, id)
	return withoutSecrets(ep), err
}

// Add saves a new endpoint (types: a comma list or "*") and returns it
// with its secret, to be shown this once.
func (s *Endpoints) Add(ctx context.Context, a access.Actor, url, types, description string) (events.Endpoint, error) {
	appid, err := s.mayStrong(ctx, a, access.PermSettingsWrite)
	if err != nil {
		return events.Endpoint{}, err
	}
	ts, err := events.ParseTypes(types)
	if err != nil {
		return events.Endpoint{}, invalid("%s", err.Error())
	}
	return s.store.Add(ctx, events.Endpoint{AppID: appid, URL: url, Types: ts, Description: description}, entry(s.now(), a, "", "", nil))
}

// Update changes an endpoint of the merchant's.
func (s *Endpoints) Update(ctx context.Context, a access.Actor, id string, c events.Change) (events.Endpoint, error) {
	appid, err := s.mayStrong(ctx, a, access.PermSettingsWrite)
	if err != nil {
		return events.Endpoint{}, err
	}
	ep, err := s.store.Update(ctx, appid, id, c, entry(s.now(), a, "", "", nil))
	return withoutSecrets(ep), err
}

// Rotate gives an endpoint a new secret, returned to be shown once; the
// old one signs too for overlap (0: the store's default).
func (s *Endpoints) Rotate(ctx context.Context, a access.Actor, id string, overlap time.Duration) (events.Endpoint, error) {
	appid, err := s.mayStrong(ctx, a, access.PermKeysRotate)
	if err != nil {
		return events.Endpoint{}, err
	}
	return s.store.Rotate(ctx, appid, id, overlap, entry(s.now(), a, "", "", nil))
}

// Remove deletes an endpoint of the merchant's.
func (s *Endpoints) Remove(ctx context.Context, a access.Actor, id string) error {
	appid, err := s.may(a, access.PermSettingsWrite)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, appid, id, entry(s.now(), a, "", "", nil))
}

// Deliveries is a page of an endpoint's deliveries, newest first, created
// before the cursor (ms; 0: now), and the next page's cursor.
func (s *Endpoints) Deliveries(ctx context.Context, a access.Actor, id string, before int64, n int) ([]events.Delivery, int64, error) {
	appid, ep, err := s.engine(ctx, a, access.PermWebhooksRead, id)
	if err != nil {
		return nil, 0, err
	}
	return s.deliveries.Deliveries(ctx, appid, ep.ID, before, n)
}

// SendTest sends the endpoint an endpoint.test event as a real delivery.
func (s *Endpoints) SendTest(ctx context.Context, a access.Actor, id string) (events.Delivery, error) {
	appid, ep, err := s.engine(ctx, a, access.PermWebhooksResend, id)
	if err != nil {
		return events.Delivery{}, err
	}
	d, err := s.deliveries.SendTest(ctx, appid, ep)
	if err != nil {
		return events.Delivery{}, err
	}
	return d, s.store.Record(ctx, ep, entry(s.now(), a, events.ActionTest, "", map[string]string{"ref": d.ID}))
}

// Resend makes one delivery of the endpoint due now.
func (s *Endpoints) Resend(ctx context.Context, a access.Actor, id, deliveryID string) error {
	appid, ep, err := s.engine(ctx, a, access.PermWebhooksResend, id)
	if err != nil {
		return err
	}
	d, err := s.deliveries.Delivery(ctx, appid, deliveryID)
	if err != nil {
		return err
	}
	if d.EndpointID != ep.ID {
		return notFound("no such delivery of this endpoint")
	}
	if err := s.deliveries.Resend(ctx, appid, deliveryID); err != nil {
		return err
	}
	return s.store.Record(ctx, ep, entry(s.now(), a, events.ActionResend, "", map[string]string{"ref": deliveryID}))
}

// ReplaySince makes every failed delivery of the endpoint created since
// due now, and says how many.
func (s *Endpoints) ReplaySince(ctx context.Context, a access.Actor, id string, since time.Time) (int, error) {
	appid, ep, err := s.engine(ctx, a, access.PermWebhooksResend, id)
	if err != nil {
		return 0, err
	}
	if err := events.CheckReplaySince(ep, since, s.now()); err != nil {
		return 0, err
	}
	n, err := s.deliveries.ReplaySince(ctx, appid, ep, since)
	if err != nil {
		return 0, err
	}
	details := map[string]string{"note": "since " + since.UTC().Format(time.RFC3339), "count": strconv.Itoa(n)}
	return n, s.store.Record(ctx, ep, entry(s.now(), a, events.ActionReplay, "", details))
}

// may is the merchant of a when its role grants p and the store is here.
func (s *Endpoints) may(a access.Actor, p access.Permission) (string, error) {
	appid, err := may(a, p)
	if err != nil {
		return "", err
	}
	if s.store == nil {
		return "", errNoEndpoints
	}
	return appid, nil
}

// mayStrong is may for what decides where the merchant's events go or
// what signs them: the person needs TOTP enrolled too, as for the callback
// URL and the keys (a phished password alone must not redirect events).
func (s *Endpoints) mayStrong(ctx context.Context, a access.Actor, p access.Permission) (string, error) {
	if _, err := s.strong.may(ctx, a, p); err != nil {
		return "", err
	}
	return s.may(a, p)
}

// engine is may for a deliveries' call on endpoint id: the endpoint
// (another merchant's is 404 before the engine is asked anything) and the
// engine's presence.
func (s *Endpoints) engine(ctx context.Context, a access.Actor, p access.Permission, id string) (string, events.Endpoint, error) {
	appid, err := s.may(a, p)
	if err != nil {
		return "", events.Endpoint{}, err
	}
	ep, err := s.store.Get(ctx, appid, id)
	if err != nil {
		return "", events.Endpoint{}, err
	}
	if s.deliveries == nil {
		return "", events.Endpoint{}, events.ErrNoDeliveries
	}
	return appid, ep, nil
}

func withoutSecrets(ep events.Endpoint) events.Endpoint {
	ep.Secret, ep.PrevSecret = "", ""
	return ep
}
