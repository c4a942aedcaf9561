package events

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// fakeAccounts admits the merchants it holds by appid and query key.
type fakeAccounts map[string]*merchant.Account

func (f fakeAccounts) Lookup(_ context.Context, appid string) (*merchant.Account, error) {
	if a, ok := f[appid]; ok {
		return a, nil
	}
	return nil, merchant.ErrNotFound
}

func (f fakeAccounts) AuthQuery(_ context.Context, appid, key string) (*merchant.Account, error) {
	if a, ok := f[appid]; ok && a.QueryKey == key {
		return a, nil
	}
	return nil, platform.Errorf(platform.KindInvalidKey, "key is not valid for this appid")
}

// fakeDeliveries records what it was asked, answering as an engine would.
type fakeDeliveries struct{ replayed, tested []string }

func (f *fakeDeliveries) Deliveries(_ context.Context, _, ep string, _ int64, _ int) ([]Delivery, int64, error) {
	return []Delivery{{ID: "evt_1." + ep, EndpointID: ep, State: Delivered}}, 0, nil
}
func (f *fakeDeliveries) Delivery(context.Context, string, string) (Delivery, error) {
	return Delivery{}, platform.Errorf(platform.KindNotFound, "no such delivery")
}
func (f *fakeDeliveries) Resend(context.Context, string, string) error { return nil }
func (f *fakeDeliveries) ReplaySince(_ context.Context, _ string, ep Endpoint, _ time.Time) (int, error) {
	f.replayed = append(f.replayed, ep.ID)
	return 2, nil
}
func (f *fakeDeliveries) SendTest(_ context.Context, _ string, ep Endpoint) (Delivery, error) {
	f.tested = append(f.tested, ep.ID)
	return Delivery{ID: "evt_t." + ep.ID, EndpointID: ep.ID, Type: EndpointTest, State: Pending}, nil
}

type apiEnv struct {
	*storeEnv
	api        *API
	shop, othr *merchant.Account
	fake       *fakeDeliveries
	seq        int
}

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	se := newStoreEnv(t)
	e := &apiEnv{storeEnv: se, fake: &fakeDeliveries{},
		shop: &merchant.Account{AppID: "1001", APIKey: "shopkey", QueryKey: "shopq"},
		othr: &merchant.Account{AppID: "1002", APIKey: "otherkey", QueryKey: "otherq"}}
	api, err := NewAPI(APIConfig{Now: func() time.Time { return se.now }}, se.s, e.fake,
		fakeAccounts{"1001": e.shop, "1002": e.othr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.api = api
	return e
}

// signed is p of acct with a fresh requestId and timestamp, signed.
func (e *apiEnv) signed(acct *merchant.Account, p schema.Params) schema.Params {
	e.seq++
	p["appid"], p["requestId"], p["timestamp"] = acct.AppID, "r-"+strconv.Itoa(e.seq), strconv.FormatInt(e.now.Unix(), 10)
	p["sign"] = schema.Sign(p, acct.APIKey)
	return p
}

// TestEndpointAPIGuards: another merchant's endpoint is 404 on every call,
// a signed change is made once (its requestId) and only in its window, a
// replay reaches no further back than the endpoint.
func TestEndpointAPIGuards(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	ep, err := e.api.Create(ctx, e.signed(e.shop, schema.Params{"url": "https://shop.example/hooks", "types": "order.expired"}), "127.0.0.1")
	if err != nil || ep.Secret == "" {
		t.Fatalf("create: %+v %v", ep, err)
	}
	captured := e.signed(e.shop, schema.Params{"url": "https://shop.example/two"})
	if _, err := e.api.Create(ctx, captured, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	stale := e.signed(e.shop, schema.Params{"url": "https://shop.example/three"})
	stale["timestamp"] = strconv.FormatInt(e.now.Add(-6*time.Minute).Unix(), 10)
	stale["sign"] = schema.Sign(stale, e.shop.APIKey)
	other := func(p schema.Params) schema.Params { return e.signed(e.othr, p) }
	cases := []struct {
		name string
		run  func() error
		kind platform.Kind
	}{
		{"a captured create sent again", func() error { _, err := e.api.Create(ctx, captured, "x"); return err }, platform.KindConflict},
		{"signed six minutes ago", func() error { _, err := e.api.Create(ctx, stale, "x"); return err }, platform.KindInvalidParameter},
		{"an unknown type", func() error {
			_, err := e.api.Create(ctx, e.signed(e.shop, schema.Params{"url": "https://a.example/", "types": "order.payed"}), "x")
			return err
		}, platform.KindInvalidParameter},
		{"an unknown parameter", func() error {
			_, err := e.api.Create(ctx, e.signed(e.shop, schema.Params{"url": "https://a.example/", "secret": "mine"}), "x")
			return err
		}, platform.KindInvalidParameter},
		{"a wrong sign", func() error {
			p := e.signed(e.shop, schema.Params{"url": "https://a.example/"})
			p["url"] = "https://evil.example/"
			_, err := e.api.Create(ctx, p, "x")
			return err
		}, platform.KindInvalidSign},
		{"updating another merchant's", func() error {
			_, err := e.api.Update(ctx, ep.ID, other(schema.Params{"enabled": "false"}), "x")
			return err
		}, platform.KindNotFound},
		{"rotating another merchant's", func() error { _, err := e.api.Rotate(ctx, ep.ID, other(schema.Params{}), "x"); return err }, platform.KindNotFound},
		{"deleting another merchant's", func() error { return e.api.Delete(ctx, ep.ID, other(schema.Params{}), "x") }, platform.KindNotFound},
		{"replaying another merchant's", func() error {
			_, err := e.api.Replay(ctx, ep.ID, other(schema.Params{"since": e.now.Format(time.RFC3339)}), "x")
			return err
		}, platform.KindNotFound},
		{"testing another merchant's", func() error { _, err := e.api.Test(ctx, ep.ID, other(schema.Params{}), "x"); return err }, platform.KindNotFound},
		{"reading another merchant's", func() error { _, err := e.api.Read(ctx, e.othr, ep.ID); return err }, platform.KindNotFound},
		{"another merchant's deliveries", func() error { _, _, err := e.api.DeliveriesPage(ctx, e.othr, ep.ID, "", ""); return err }, platform.KindNotFound},
		{"a replay since before the endpoint", func() error {
			_, err := e.api.Replay(ctx, ep.ID, e.signed(e.shop, schema.Params{"since": e.now.Add(-time.Hour).Format(time.RFC3339)}), "x")
			return err
		}, platform.KindInvalidParameter},
		{"a replay since no time", func() error {
			_, err := e.api.Replay(ctx, ep.ID, e.signed(e.shop, schema.Params{"since": "yesterday"}), "x")
			return err
		}, platform.KindInvalidParameter},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if k := kindOf(tt.run()); k != tt.kind {
				t.Fatalf("kind %q, want %q", k, tt.kind)
			}
		})
	}
	if len(e.fake.replayed)+len(e.fake.tested) != 0 {
		t.Fatalf("the engine was asked %v %v", e.fake.replayed, e.fake.tested)
	}
	if n, err := e.api.Replay(ctx, ep.ID, e.signed(e.shop, schema.Params{"since": e.now.Format(time.RFC3339)}), "x"); n != 2 || err != nil {
		t.Fatalf("own replay: %d %v", n, err)
	}
}

// TestEndpointAPIRefusedRequestIDReusable: a change refused after its
// requestId was taken (a bad URL) gives it back, so the corrected change
// may carry it.
func TestEndpointAPIRefusedRequestIDReusable(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	bad := e.signed(e.shop, schema.Params{"url": "http://10.0.0.1/hook"})
	if _, err := e.api.Create(ctx, bad, "x"); kindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("private address: %v", err)
	}
	good := schema.Params{"url": "https://shop.example/", "appid": bad["appid"], "requestId": bad["requestId"], "timestamp": bad["timestamp"]}
	good["sign"] = schema.Sign(good, e.shop.APIKey)
	if _, err := e.api.Create(ctx, good, "x"); err != nil {
		t.Fatalf("the corrected change: %v", err)
	}
}
