package main

import (
	"context"
	"strings"
	"testing"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestWebhookEndpointCLI: gateway webhook endpoint adds, lists, shows,
// updates, rotates and removes a merchant's endpoints, printing the secret
// on add and rotate only, each change audited as the CLI's by --by; another
// merchant's endpoint is not found; the deliveries' subcommands say the
// engine is not there rather than pretend.
func TestWebhookEndpointCLI(t *testing.T) {
	e := newE2ERedis(t)
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "other", "--sandbox", "--json")
	type view struct {
		ID, URL, Secret string
		Types           []string
		Enabled         bool
	}
	var added, shown, updated, rotated view
	e.cli(&added, "webhook", "endpoint", "add", shop.AppID, "--url", "https://93.184.216.34/hooks", "--types", "order.expired", "--by", "ana", "--json")
	if added.ID == "" || !strings.HasPrefix(added.Secret, "whsec_") || strings.Join(added.Types, ",") != "order.expired" {
		t.Fatalf("add printed %+v", added)
	}
	e.cli(&shown, "webhook", "endpoint", "show", shop.AppID, added.ID, "--json")
	var listed []view
	e.cli(&listed, "webhook", "endpoint", "list", shop.AppID, "--json")
	if shown.Secret != "" || len(listed) != 1 || listed[0].Secret != "" {
		t.Fatalf("a read printed a secret: %+v %+v", shown, listed)
	}
	e.cli(&updated, "webhook", "endpoint", "update", shop.AppID, added.ID, "--enabled", "false", "--types", "*", "--by", "ana", "--json")
	if updated.Enabled || strings.Join(updated.Types, ",") != "*" || updated.Secret != "" {
		t.Fatalf("update printed %+v", updated)
	}
	e.cli(&rotated, "webhook", "endpoint", "rotate", shop.AppID, added.ID, "--overlap", "1", "--by", "ana", "--json")
	if rotated.Secret == "" || rotated.Secret == added.Secret {
		t.Fatalf("rotate printed %+v", rotated)
	}
	refusals := []struct {
		name string
		args []string
		want string
	}{
		{"another merchant's", []string{"show", other.AppID, added.ID}, "no such webhook endpoint"},
		{"an unknown type", []string{"add", shop.AppID, "--url", "https://93.184.216.34/x", "--types", "order.payed"}, "not an event type"},
		{"a test of a disabled endpoint", []string{"test", shop.AppID, added.ID}, "the endpoint is disabled"},
		{"a replay before the endpoint", []string{"replay", shop.AppID, added.ID, "--since", "2020-01-01T00:00:00Z"}, "before the endpoint was created"},
		{"an unknown subcommand", []string{"delete", shop.AppID, added.ID}, "unknown subcommand"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			if msg := e.refused(append([]string{"webhook", "endpoint"}, tt.args...)...); !strings.Contains(msg, tt.want) {
				t.Fatalf("stderr %q, want %q", msg, tt.want)
			}
		})
	}
	e.cli(nil, "webhook", "endpoint", "remove", shop.AppID, added.ID, "--by", "ana", "--json")
	if out := e.output(t, "webhook", "endpoint", "list", shop.AppID); !strings.HasPrefix(out, "no webhook endpoints") {
		t.Fatalf("list after remove: %s", out)
	}
	rdb := testenv.Client(t, e.redisURL)
	rows, err := audit.Read(context.Background(), rdb, schema.AuditKey(schema.HomeShard(shop.AppID).Tag()), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		if r.Realm == audit.RealmCLI && r.ActorID == "ana" {
			got = append(got, r.Action)
		}
	}
	if strings.Join(got, " ") != "webhook_endpoint.add webhook_endpoint.update webhook_endpoint.rotate_secret webhook_endpoint.remove" {
		t.Fatalf("audited as the CLI's by ana: %v", got)
	}
}
