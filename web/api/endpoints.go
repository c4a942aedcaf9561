package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
)

// EndpointView is one webhook endpoint as the merchant API answers it.
// Secret is set only in the answers of a create and a rotation: a read
// never carries it, so a leaked query key does not leak the secret.
type EndpointView struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Types          []string `json:"types"` // ["*"]: every type
	Description    string   `json:"description,omitempty"`
	Enabled        bool     `json:"enabled"`
	DisabledReason string   `json:"disabledReason,omitempty"`
	DisabledAt     string   `json:"disabledAt,omitempty"`
	Secret         string   `json:"secret,omitempty"`
	PrevSecretTill string   `json:"previousSecretValidUntil,omitempty"`
	Created        string   `json:"created"`
	Updated        string   `json:"updated"`
}

// EndpointsView is GET /api/webhook-endpoints.
type EndpointsView struct {
	Endpoints []EndpointView `json:"endpoints"`
}

// ViewEndpoint is ep as reads show it: without its secret.
func ViewEndpoint(ep events.Endpoint) EndpointView {
	types := []string{"*"}
	if len(ep.Types) > 0 {
		types = types[:0]
		for _, t := range ep.Types {
			types = append(types, string(t))
		}
	}
	v := EndpointView{ID: ep.ID, URL: ep.URL, Types: types, Description: ep.Description, Enabled: ep.Enabled,
		DisabledReason: ep.DisabledWhy, DisabledAt: rfc3339(ep.DisabledAt), Created: rfc3339(ep.Created), Updated: rfc3339(ep.Updated)}
	if !ep.PrevUntil.IsZero() {
		v.PrevSecretTill = rfc3339(ep.PrevUntil)
	}
	return v
}

// withSecret is ep as a create or a rotation answers it, its secret once.
func withSecret(ep events.Endpoint) EndpointView {
	v := ViewEndpoint(ep)
	v.Secret = ep.Secret
	return v
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// RegisterEndpoints mounts the webhook endpoints' merchant API: changes
// are POSTs signed as createorder with a requestId and a timestamp; reads
// are GETs with appid and the query key.
func RegisterEndpoints(r fiber.Router, a *events.API, ips *platform.ClientIP) {
	r.Post("/api/webhook-endpoints", endpointCreate(a, ips))
	r.Get("/api/webhook-endpoints", endpointList(a))
	r.Get("/api/webhook-endpoints/:id", endpointRead(a))
	r.Post("/api/webhook-endpoints/:id", endpointChange(a, ips, a.Update, ViewEndpoint))
	r.Post("/api/webhook-endpoints/:id/rotate", endpointChange(a, ips, a.Rotate, withSecret))
	r.Post("/api/webhook-endpoints/:id/delete", endpointDelete(a, ips))
	r.Post("/api/webhook-endpoints/:id/replay", endpointReplay(a, ips))
	r.Post("/api/webhook-endpoints/:id/test", endpointTest(a, ips))
	r.Get("/api/webhook-endpoints/:id/deliveries", endpointDeliveries(a))
}
