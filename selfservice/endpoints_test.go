package selfservice

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// fakeEngine answers as the delivery engine would: every endpoint has one
// dead delivery "evt_dead.<endpoint>".
type fakeEngine struct{ asked []string }

func (f *fakeEngine) Deliveries(_ context.Context, _, ep string, _ int64, _ int) ([]events.Delivery, int64, error) {
	return []events.Delivery{{ID: "evt_dead." + ep, EndpointID: ep, State: events.Dead}}, 0, nil
}
func (f *fakeEngine) Delivery(_ context.Context, _, id string) (events.Delivery, error) {
	_, ep, _ := strings.Cut(id, ".")
	return events.Delivery{ID: id, EndpointID: ep, State: events.Dead}, nil
}
func (f *fakeEngine) Resend(_ context.Context, _, id string) error {
	f.asked = append(f.asked, "resend "+id)
	return nil
}
func (f *fakeEngine) ReplaySince(_ context.Context, _ string, ep events.Endpoint, _ time.Time) (int, error) {
	f.asked = append(f.asked, "replay "+ep.ID)
	return 1, nil
}
func (f *fakeEngine) SendTest(_ context.Context, _ string, ep events.Endpoint) (events.Delivery, error) {
	f.asked = append(f.asked, "test "+ep.ID)
	return events.Delivery{ID: "evt_t." + ep.ID, EndpointID: ep.ID}, nil
}

// endpointOf saves an endpoint of appid added an hour ago and returns its id.
func (e *env) endpointOf(appid string) string {
	e.t.Helper()
	ep := events.Endpoint{ID: "ep_" + rand(), AppID: appid, URL: "https://93.184.216.34/hooks", Enabled: true,
		Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=", Created: time.Now().Add(-time.Hour), Updated: time.Now().Add(-time.Hour)}
	raw, _ := json.Marshal(ep)
	if err := e.rdb.HSet(context.Background(), schema.EndpointsKey(appid), ep.ID, raw).Err(); err != nil {
		e.t.Fatal(err)
	}
	return ep.ID
}

// endpointActions are the endpoints' use cases for TestEveryRoleOnEveryUseCase.
func endpointActions() []action {
	ctx := context.Background()
	ep := func(e *env, appid string) string { return e.endpointOf(appid) }
	on := true
	return []action{
		{"endpoints", everyone, false, ep, func(e *env, w access.Actor, _ string) error { return ignore(e.svc.Endpoints.List(ctx, w)) }},
		{"endpoint", everyone, false, ep, func(e *env, w access.Actor, id string) error { return ignore(e.svc.Endpoints.Get(ctx, w, id)) }},
		{"endpoint deliveries", everyone, false, ep, func(e *env, w access.Actor, id string) error {
			_, _, err := e.svc.Endpoints.Deliveries(ctx, w, id, 0, 10)
			return err
		}},
		{"add endpoint", developers, true, nil, func(e *env, w access.Actor, _ string) error {
			return ignore(e.svc.Endpoints.Add(ctx, w, "https://93.184.216.35/hooks", "order.expired", ""))
		}},
		{"change endpoint", developers, true, ep, func(e *env, w access.Actor, id string) error {
			return ignore(e.svc.Endpoints.Update(ctx, w, id, events.Change{Enabled: &on}))
		}},
		{"rotate endpoint secret", developers, true, ep, func(e *env, w access.Actor, id string) error {
			return ignore(e.svc.Endpoints.Rotate(ctx, w, id, time.Hour))
		}},
		{"remove endpoint", developers, true, ep, func(e *env, w access.Actor, id string) error { return e.svc.Endpoints.Remove(ctx, w, id) }},
		{"test endpoint", developers, true, ep, func(e *env, w access.Actor, id string) error { return ignore(e.svc.Endpoints.SendTest(ctx, w, id)) }},
		{"resend endpoint delivery", developers, true, ep, func(e *env, w access.Actor, id string) error {
			return e.svc.Endpoints.Resend(ctx, w, id, "evt_dead."+id)
		}},
		{"replay endpoint", developers, true, ep, func(e *env, w access.Actor, id string) error {
			return ignore(e.svc.Endpoints.ReplaySince(ctx, w, id, time.Now().Add(-time.Minute)))
		}},
	}
}

// TestEndpointsOfAnotherMerchant: a developer of one merchant reaches no
// endpoint of another, nor another endpoint's delivery through its own;
// reads never carry a secret.
func TestEndpointsOfAnotherMerchant(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	dev := e.who(e.shop.AppID, access.RoleDeveloper)
	mine, theirs := e.endpointOf(e.shop.AppID), e.endpointOf(e.other.AppID)
	cases := []struct {
		name string
		run  func() error
	}{
		{"read", func() error { return ignore(e.svc.Endpoints.Get(ctx, dev, theirs)) }},
		{"deliveries", func() error { _, _, err := e.svc.Endpoints.Deliveries(ctx, dev, theirs, 0, 10); return err }},
		{"replay", func() error {
			return ignore(e.svc.Endpoints.ReplaySince(ctx, dev, theirs, time.Now().Add(-time.Minute)))
		}},
		{"test", func() error { return ignore(e.svc.Endpoints.SendTest(ctx, dev, theirs)) }},
		{"resend", func() error { return e.svc.Endpoints.Resend(ctx, dev, theirs, "evt_dead."+theirs) }},
		{"resend their delivery through mine", func() error { return e.svc.Endpoints.Resend(ctx, dev, mine, "evt_dead."+theirs) }},
		{"remove", func() error { return e.svc.Endpoints.Remove(ctx, dev, theirs) }},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if k := kindOf(tt.run()); k != platform.KindNotFound {
				t.Fatalf("kind %q, want not found", k)
			}
		})
	}
	if len(e.engine.asked) != 0 {
		t.Fatalf("the engine was asked %v", e.engine.asked)
	}
	list, err := e.svc.Endpoints.List(ctx, dev)
	got, _ := e.svc.Endpoints.Get(ctx, dev, mine)
	if err != nil || len(list) != 1 || list[0].Secret != "" || got.Secret != "" || got.ID != mine {
		t.Fatalf("reads %+v %+v %v", list, got, err)
	}
}

// TestEndpointChangesNeedTOTP: a developer without TOTP may not add or
// change an endpoint or rotate its secret (ErrNeedsTOTP, nothing changed),
// and the page is told to offer those forms to nobody; with TOTP the same
// role may. Removing, testing and replaying need no TOTP: they send no
// event anywhere new.
func TestEndpointChangesNeedTOTP(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	appid := e.shop.AppID
	id := e.endpointOf(appid)
	weak := e.enrol(appid, access.RoleDeveloper, false)
	on := false
	cases := []struct {
		name string
		do   func(w access.Actor) error
	}{
		{"add", func(w access.Actor) error {
			return ignore(e.svc.Endpoints.Add(ctx, w, "https://93.184.216.35/h", "", ""))
		}},
		{"change", func(w access.Actor) error {
			return ignore(e.svc.Endpoints.Update(ctx, w, id, events.Change{Enabled: &on}))
		}},
		{"rotate", func(w access.Actor) error { return ignore(e.svc.Endpoints.Rotate(ctx, w, id, time.Hour)) }},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			before := e.fingerprint()
			if err := tt.do(weak); err != ErrNeedsTOTP {
				t.Fatalf("without TOTP: %v", err)
			}
			if e.fingerprint() != before {
				t.Fatal("refused but something changed")
			}
		})
	}
	if need, err := e.svc.Endpoints.NeedsTOTP(ctx, weak); !need || err != nil {
		t.Fatalf("NeedsTOTP %v %v", need, err)
	}
	strong := e.who(appid, access.RoleDeveloper)
	if need, _ := e.svc.Endpoints.NeedsTOTP(ctx, strong); need {
		t.Fatal("a developer with TOTP is told to set it up")
	}
	for _, tt := range cases {
		if err := tt.do(strong); err != nil {
			t.Fatalf("%s with TOTP: %v", tt.name, err)
		}
	}
}
