package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/paygate/gateway/events"
)

// endpointSecrets are the secrets the demo merchant's webhook endpoints
// sign their events with now, for the receiver to verify an event as the
// merchant's own code would: the endpoints whose URL is the path the event
// came to (any of them when none is).
type endpointSecrets func(ctx context.Context, path string, now time.Time) ([]string, error)

// storeSecrets reads the endpoints of the merchant named in file (its
// appid) from st at each event, so an endpoint added or rotated while the
// receiver runs verifies at once.
func storeSecrets(st *events.Store, file string) endpointSecrets {
	return func(ctx context.Context, path string, now time.Time) ([]string, error) {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read the demo merchant: %w", err)
		}
		var f struct {
			AppID string `json:"appid"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.AppID == "" {
			return nil, fmt.Errorf("read the demo merchant's appid from %s", file)
		}
		eps, err := st.List(ctx, f.AppID)
		if err != nil {
			return nil, err
		}
		var all, here []string
		for _, ep := range eps {
			all = append(all, ep.Secrets(now)...)
			if atPath(ep.URL, path) {
				here = append(here, ep.Secrets(now)...)
			}
		}
		if len(here) > 0 {
			return here, nil
		}
		return all, nil
	}
}

// checkEvent prints an endpoint event (a JSON body) and verifies its
// webhook-signature with the endpoints' secrets; any 2xx acknowledges an
// event, so a verified one is answered 204.
func (r *receiver) checkEvent(req *http.Request, body []byte, b *strings.Builder) bool {
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type == "" {
		fmt.Fprintf(b, "  not an event (%v): %.200q\n  answered 400\n", err, body)
		return false
	}
	fmt.Fprintf(b, "  %-18s %s %s\n  %-18s %s\n", "event:", printable([]byte(ev.Type)), printable([]byte(ev.ID)), "body:", printable(body))
	if r.endpoints == nil {
		b.WriteString("  webhook-signature (endpoint secret): not checked: the receiver reads no endpoints (--redis-url)\n  answered: 400\n")
		return false
	}
	secrets, err := r.endpoints(req.Context(), req.URL.Path, r.now())
	if err != nil {
		fmt.Fprintf(b, "  (%v)\n", err)
	}
	v := verdict{Why: "no endpoint of the demo merchant to check with"}
	for _, s := range secrets {
		if v = checkHMAC(req.Header, body, s, r.now()); v.OK {
			break
		}
	}
	fmt.Fprintf(b, "  webhook-signature (endpoint secret): %s\n", v)
	if v.OK {
		b.WriteString("  answered: 204\n")
	} else {
		b.WriteString("  answered: 400 (a receiver rejects an event whose signature does not verify; the gateway retries)\n")
	}
	return v.OK
}

// atPath reports whether an endpoint's URL has the path an event came to.
func atPath(raw, path string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Path == path
}
