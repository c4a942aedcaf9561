package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// output prints a command's answer for people (tables and "name: value"
// lines) or, with --json, for scripts.
type output struct {
	w    io.Writer
	json bool
}

func (o output) value(v any) error {
	if o.json {
		enc := json.NewEncoder(o.w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	m, _ := json.Marshal(v)
	var flat map[string]any
	if json.Unmarshal(m, &flat) != nil {
		_, err := fmt.Fprintln(o.w, string(m))
		return err
	}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(o.w, "%-18s %s\n", k+":", plain(flat[k]))
	}
	return nil
}

// plain writes a decoded JSON value as people read it: lists joined with
// commas, objects as sorted name=value pairs, never Go's map[...] syntax.
func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = plain(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + plain(x[k])
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}

// credentials says which of an account's credentials a printout may show:
// each only where the command makes it (create both, rotate-key the API
// key, rotate-query-key the query key) and in show, which is how an
// operator reads them again. A list, a change of state or of limits shows
// none: its output ends up in terminals, logs and tickets.
type credentials struct{ apiKey, queryKey bool }

var (
	allCredentials = credentials{apiKey: true, queryKey: true}
	noCredentials  = credentials{}
)

func (o output) account(a *merchant.Account, c credentials) error {
	return o.value(o.accountView(a, c))
}

// accountView is an account as the CLI prints it: the credentials only
// where c allows, and as text the rate limits as people write them ("5/s
// burst 10"); --json keeps their structure for scripts.
func (o output) accountView(a *merchant.Account, c credentials) map[string]any {
	raw, _ := json.Marshal(a)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	if !c.apiKey {
		delete(v, "apiKey")
	}
	if !c.queryKey {
		delete(v, "queryKey")
	}
	if now := time.Now(); a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) {
		v["webhookKey"] = webhookKeyWord(a.WebhooksOnOldKey(now))
	}
	for name, l := range map[string]*platform.Limit{"createLimit": a.CreateLimit, "queryLimit": a.QueryLimit, "reportLimit": a.ReportLimit} {
		if l != nil && !o.json {
			v[name] = l.Human()
		}
	}
	return v
}

// withWebhookSecret is the account with its webhook secret: only create and
// rotate-webhook-secret print it, the moments the merchant must copy it.
func (o output) withWebhookSecret(a *merchant.Account, c credentials) error {
	v := o.accountView(a, c)
	v["webhookSecret"] = a.WebhookSecret
	if !a.PrevWebhookTill.IsZero() && a.PrevWebhookSecret != "" {
		v["prevWebhookSecretValidUntil"] = schema.WireTime(a.PrevWebhookTill)
	}
	return o.value(v)
}

// webhookKeyWord names the API key webhooks are MD5-signed with during a
// rotation's grace.
func webhookKeyWord(old bool) string {
	if old {
		return "previous (until the grace ends or confirm-webhook-key)"
	}
	return "current (confirmed)"
}

// list prints every account without its credentials (merchant show prints
// one account's).
func (o output) list(all []*merchant.Account) error {
	if o.json {
		views := make([]map[string]any, len(all))
		for i, a := range all {
			views[i] = o.accountView(a, noCredentials)
		}
		return o.value(views)
	}
	if len(all) == 0 {
		return noRows(o.w, "merchants", "gateway merchant create --name NAME")
	}
	fmt.Fprintf(o.w, "%-8s %-8s %-9s %-24s %s\n", "APPID", "MODE", "STATE", "NAME", "CALLBACK")
	for _, a := range all {
		mode, state := "live", "enabled"
		if a.Sandbox {
			mode = "sandbox"
		}
		if a.Disabled {
			state = "disabled"
		}
		fmt.Fprintf(o.w, "%-8s %-8s %-9s %-24s %s\n", a.AppID, mode, state, a.Name, a.Callback)
	}
	return nil
}
