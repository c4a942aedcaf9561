package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/web/api"
)

const webhookEndpointUsage = `usage: gateway webhook endpoint <subcommand> APPID [ENDPOINTID] [flags]

A merchant's webhook endpoints (at most 10) for the typed events
(docs/events.md). Changes are in the audit log as the CLI's, by NAME
(default: the OS user). The secret is printed by add and rotate only.

  add APPID --url URL [--types T,T|*] [--description D]
  list APPID
  show APPID ENDPOINTID
  update APPID ENDPOINTID [--url URL] [--types T,T|*] [--description D] [--enabled true|false]
  rotate APPID ENDPOINTID [--overlap HOURS]   a new secret; the old one signs too meanwhile
  remove APPID ENDPOINTID
  test APPID ENDPOINTID                       send it an endpoint.test event
  replay APPID ENDPOINTID --since RFC3339     every failed delivery since then, again
  deliveries APPID ENDPOINTID [--limit N] [--before CURSOR]
`

// webhookEndpointSynopsis is each subcommand's arguments, for its --help.
var webhookEndpointSynopsis = map[string]string{
	"add":        "APPID --url URL [--types T,T|*] [--description D] [--by NAME] [--json]",
	"list":       "APPID [--json]",
	"show":       "APPID ENDPOINTID [--json]",
	"update":     "APPID ENDPOINTID [--url URL] [--types T,T|*] [--description D] [--enabled true|false] [--by NAME] [--json]",
	"rotate":     "APPID ENDPOINTID [--overlap HOURS] [--by NAME] [--json]",
	"remove":     "APPID ENDPOINTID [--by NAME] [--json]",
	"test":       "APPID ENDPOINTID [--by NAME] [--json]",
	"replay":     "APPID ENDPOINTID --since RFC3339 [--by NAME] [--json]",
	"deliveries": "APPID ENDPOINTID [--limit N] [--before CURSOR] [--json]",
}

// endpointFlags are every subcommand's flags; each binds those it takes.
type endpointFlags struct {
	url, types, description, enabled, since, before, by *string
	overlap, limit                                      *int
}

func bindEndpointFlags(fs *flag.FlagSet, sub string) endpointFlags {
	var f endpointFlags
	s := func(name, usage string) *string { return fs.String(name, "", usage) }
	switch sub {
	case "add", "update":
		f.url, f.types = s("url", "where the events go (public https)"), s("types", "comma-separated event types, or * for every type")
		f.description = s("description", "what it is for")
		if sub == "update" {
			f.enabled = s("enabled", "true or false")
		}
	case "rotate":
		f.overlap = fs.Int("overlap", 24, "hours the old secret still signs (0 to 720)")
	case "replay":
		f.since = s("since", "RFC 3339 time: deliveries created since then")
	case "deliveries":
		f.limit, f.before = fs.Int("limit", 20, "how many (1 to 100)"), s("before", "the cursor a page printed")
	}
	if sub != "list" && sub != "show" && sub != "deliveries" {
		f.by = s("by", "who makes the change, recorded in the audit log (default: the OS user)")
	}
	return f
}

// webhookEndpointCmd manages a merchant's webhook endpoints through the
// same store and delivery engine as the merchant API and console.
func webhookEndpointCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("webhook endpoint", webhookEndpointUsage, webhookEndpointSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	f := bindEndpointFlags(fs, sub)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if want := map[bool]int{true: 1, false: 2}[sub == "add" || sub == "list"]; len(pos) != want {
		return fmt.Errorf("webhook endpoint %s: want %s\n%s", sub, webhookEndpointSynopsis[sub], webhookEndpointUsage)
	}
	var e audit.Entry
	if f.by != nil {
		actor, err := cliAuditActor(*f.by, given(fs, "by"))
		if err != nil {
			return fmt.Errorf("webhook endpoint %s: %w", sub, err)
		}
		e = audit.Entry{At: time.Now().UTC(), ActorID: actor.ID, Realm: audit.RealmCLI, Source: "cli"}
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	st, err := cliEndpoints(rdb)
	if err != nil {
		return err
	}
	deliveries, err := cliEndpointDeliveries(rdb, st)
	if err != nil {
		return err
	}
	c := endpointCLI{st: st, deliveries: deliveries, appid: pos[0], f: f, given: func(n string) bool { return given(fs, n) },
		e: e, out: output{w: stdout, json: *asJSON}}
	if len(pos) == 2 {
		c.id = pos[1]
	}
	if err := c.run(ctx, sub); err != nil {
		return fmt.Errorf("webhook endpoint %s: %w", sub, err)
	}
	return nil
}

// cliEndpoints is the endpoints' store judging URLs by this machine's
// GATEWAY_WEBHOOK_* settings, as serve's doors do.
func cliEndpoints(rdb redis.UniversalClient) (*events.Store, error) {
	dest, err := envDestinations()
	if err != nil {
		return nil, err
	}
	return events.NewStore(events.Defaults(), rdb, dest, nil, nil)
}

// cliEndpointDeliveries is what the CLI reads and queues of the endpoints
// of st over rdb, under this machine's GATEWAY_WEBHOOK_* settings; the
// running dispatchers send what it queues.
func cliEndpointDeliveries(rdb redis.UniversalClient, st *events.Store) (events.EndpointDeliveries, error) {
	cfg, err := envWebhookConfig()
	if err != nil {
		return nil, err
	}
	return dispatcher.NewEventDeliveries(cfg, rdb, st, nil, nil)
}

// endpointCLI runs one subcommand on endpoint id of appid.
type endpointCLI struct {
	st         *events.Store
	deliveries events.EndpointDeliveries
	appid, id  string
	f          endpointFlags
	given      func(string) bool
	e          audit.Entry
	out        output
}

func (c endpointCLI) run(ctx context.Context, sub string) error {
	switch sub {
	case "add":
		return c.add(ctx)
	case "list":
		return c.list(ctx)
	case "show":
		ep, err := c.st.Get(ctx, c.appid, c.id)
		return c.show(api.ViewEndpoint(ep), err)
	case "update":
		return c.update(ctx)
	case "rotate":
		ep, err := c.st.Rotate(ctx, c.appid, c.id, overlapHours(*c.f.overlap), c.e)
		return c.showSecret(ep, err)
	case "remove":
		if err := c.st.Remove(ctx, c.appid, c.id, c.e); err != nil {
			return err
		}
		return c.out.value(map[string]any{"id": c.id, "removed": true})
	case "test":
		return c.test(ctx)
	case "replay":
		return c.replay(ctx)
	}
	return c.listDeliveries(ctx)
}

// overlapHours is --overlap as Rotate takes it: 0 is "at once", not the
// default.
func overlapHours(h int) time.Duration {
	if h == 0 {
		return time.Nanosecond
	}
	return time.Duration(h) * time.Hour
}

func (c endpointCLI) add(ctx context.Context) error {
	types, err := events.ParseTypes(*c.f.types)
	if err != nil {
		return err
	}
	ep, err := c.st.Add(ctx, events.Endpoint{AppID: c.appid, URL: *c.f.url, Types: types, Description: *c.f.description}, c.e)
	return c.showSecret(ep, err)
}

func (c endpointCLI) update(ctx context.Context) error {
	var ch events.Change
	if c.given("url") {
		ch.URL = c.f.url
	}
	if c.given("description") {
		ch.Description = c.f.description
	}
	if c.given("types") {
		t, err := events.ParseTypes(*c.f.types)
		if err != nil {
			return err
		}
		ch.Types = &t
	}
	if c.given("enabled") {
		b, err := strconv.ParseBool(*c.f.enabled)
		if err != nil {
			return fmt.Errorf("--enabled is true or false")
		}
		ch.Enabled = &b
	}
	ep, err := c.st.Update(ctx, c.appid, c.id, ch, c.e)
	return c.show(api.ViewEndpoint(ep), err)
}

func (c endpointCLI) show(v api.EndpointView, err error) error {
	if err != nil {
		return err
	}
	return c.out.value(v)
}

// showSecret prints an endpoint with its secret: add and rotate only.
func (c endpointCLI) showSecret(ep events.Endpoint, err error) error {
	if err != nil {
		return err
	}
	v := api.ViewEndpoint(ep)
	v.Secret = ep.Secret
	return c.out.value(v)
}

func (c endpointCLI) list(ctx context.Context) error {
	eps, err := c.st.List(ctx, c.appid)
	if err != nil {
		return err
	}
	views := make([]api.EndpointView, 0, len(eps))
	for _, ep := range eps {
		views = append(views, api.ViewEndpoint(ep))
	}
	if c.out.json {
		return c.out.value(views)
	}
	if len(views) == 0 {
		return noRows(c.out.w, "webhook endpoints", "gateway webhook endpoint add "+c.appid+" --url URL")
	}
	tw := tabwriter.NewWriter(c.out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tTYPES\tURL")
	for _, v := range views {
		state := map[bool]string{true: "enabled", false: "disabled"}[v.Enabled]
		if v.DisabledReason != "" {
			state += " (" + v.DisabledReason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.ID, state, strings.Join(v.Types, ","), v.URL)
	}
	return tw.Flush()
}
