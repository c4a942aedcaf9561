package dispatcher

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// evEnv is env with merchants' webhook endpoints.
type evEnv struct {
	*env
	eps *events.Store
}

func newEvEnv(t *testing.T) *evEnv { return newEvEnvTB(t) }

func newEvEnvTB(t testing.TB) *evEnv {
	t.Helper()
	e := newEnv(t)
	eps, err := events.NewStore(events.Defaults(), e.rdb, NewDestinations(true), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &evEnv{env: e, eps: eps}
}

// startEvents runs a dispatcher that delivers endpoint events.
func (e *evEnv) startEvents(cfg Config) *running {
	e.t.Helper()
	d := e.start(cfg)
	d.WithEndpoints(e.eps)
	return d
}

// deliveries is an EventDeliveries with no dispatcher of its own, as a
// door holds one.
func (e *evEnv) deliveries(cfg Config) *EventDeliveries {
	e.t.Helper()
	ed, err := NewEventDeliveries(cfg, e.rdb, e.eps, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		e.t.Fatal(err)
	}
	return ed
}

// merchant makes another merchant account.
func (e *evEnv) merchant() string {
	e.t.Helper()
	a, err := e.accounts.Create(context.Background(), merchant.NewAccount{Name: "other"})
	if err != nil {
		e.t.Fatal(err)
	}
	return a.AppID
}

// endpoint adds an endpoint of appid to url taking types (none: all).
func (e *evEnv) endpoint(appid, url string, types ...events.Type) events.Endpoint {
	e.t.Helper()
	ep, err := e.eps.Add(context.Background(), events.Endpoint{AppID: appid, URL: url, Types: types}, who())
	if err != nil {
		e.t.Fatal(err)
	}
	return ep
}

// who is a merchant's developer, as the audit entries of endpoint changes
// name them.
func who() audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "dev", Realm: audit.RealmMerchant, Role: "developer", Source: "127.0.0.1"}
}

// event is an event of type t derived from source.
func event(t *testing.T, typ events.Type, source string) events.Event {
	t.Helper()
	ev, err := events.New(typ, source, time.Now(), map[string]string{"id": source})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// evState is a delivery's state in Redis.
func (e *evEnv) evState(appid, id string) string {
	e.t.Helper()
	d, err := e.deliveries(testConfig()).Delivery(context.Background(), appid, id)
	if err != nil {
		return ""
	}
	return d.State
}

// typeOf is the type in a received event body.
func typeOf(body string) string {
	var ev struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal([]byte(body), &ev)
	return ev.Type
}

// verify checks a request's Standard Webhooks signature with secret as a
// receiver does: HMAC-SHA256 of id.timestamp.body under the secret's
// base64 bytes, matching one of the space-separated v1 signatures.
func verify(h http.Header, body, secret string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + h.Get("webhook-timestamp") + "." + body))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(h.Get("webhook-signature")) {
		if v, sig, ok := strings.Cut(s, ","); ok && v == "v1" && hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

func kindOf(err error) platform.Kind {
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

// ScheduleEvent schedules through the dispatcher's EventDeliveries, as the
// fan-out does.
func (r *running) ScheduleEvent(ctx context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) error {
	return r.Events().ScheduleEvent(ctx, appid, ev, object, eps)
}

// The interfaces the plan's other parts code against: the fan-out's
// Scheduler and the doors' EndpointDeliveries.
var (
	_ interface {
		ScheduleEvent(ctx context.Context, appid string, ev events.Event, object string, eps []events.Endpoint) error
	} = (*EventDeliveries)(nil)
	_ interface {
		Deliveries(ctx context.Context, appid, endpointID string, before int64, n int) ([]events.Delivery, int64, error)
		Delivery(ctx context.Context, appid, deliveryID string) (events.Delivery, error)
		Resend(ctx context.Context, appid, deliveryID string) error
		ReplaySince(ctx context.Context, appid string, ep events.Endpoint, since time.Time) (int, error)
		SendTest(ctx context.Context, appid string, ep events.Endpoint) (events.Delivery, error)
	} = (*EventDeliveries)(nil)
	_ EndpointStore = (*events.Store)(nil)
)
