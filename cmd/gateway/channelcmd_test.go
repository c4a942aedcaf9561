package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

type channelList struct {
	Channels []channelRow `json:"channels"`
	Keywords []string     `json:"keywords"`
	Pins     []struct {
		AppID  string
		Method string
		IDs    []string
	} `json:"pins"`
}

func (l channelList) row(ref string) (channelRow, bool) {
	for _, r := range l.Channels {
		if r.Channel == ref {
			return r, true
		}
	}
	return channelRow{}, false
}

// TestChannelCLI: gateway channel sets a channel's routing data (flags
// not given keep their value), shows and lists it (a channel with data but
// no credentials here is listed as not configured; the sandbox's are
// configured), switches it off, to maintenance, opens and closes its
// breaker by hand, sets a mode, a pin, the keywords and a merchant's
// group, each change one audit entry of the CLI's actor; bad input is
// refused with nothing written.
func TestChannelCLI(t *testing.T) {
	e := newE2ERedis(t)
	var m struct{ AppID string }
	e.cli(&m, "merchant", "create", "--name", "Tea Shop", "--json")
	var row channelRow
	e.cli(&row, "channel", "set", "wallet_a.alt", "--weight", "5", "--daily-count", "10", "--daily-amount", "500", "--cost", "120:0.30", "--by", "alice", "--json")
	if row.Weight != 5 || row.DailyCount != 10 || row.DailyAmount != "500.00" || !strings.Contains(row.Settings, "cost 1.20% + 0.30") || row.Configured {
		t.Fatalf("set printed %+v", row)
	}
	e.cli(nil, "channel", "set", "wallet_a.alt", "--priority", "2", "--by", "alice", "--json")
	e.cli(&row, "channel", "show", "wallet_a.alt", "--json")
	if row.Weight != 5 || row.Priority != 2 || row.DailyCount != 10 || row.State != "closed" || !row.Enabled {
		t.Fatalf("a flag not given lost its value: %+v", row)
	}
	e.cli(nil, "channel", "disable", "wallet_a.alt", "--by", "alice")
	e.cli(nil, "channel", "maintenance", "wallet_a.alt", "on", "--by", "alice")
	e.cli(nil, "channel", "breaker", "open", "wallet_a.alt", "--reason", "<b>provider audit</b>", "--by", "alice")
	e.cli(&row, "channel", "show", "wallet_a.alt", "--json")
	if row.Enabled || !row.Maintenance || row.State != "open" || row.Reason != "<b>provider audit</b>" || row.By != "cli:alice" {
		t.Fatalf("after disable, maintenance, open: %+v", row)
	}
	e.cli(nil, "channel", "breaker", "close", "wallet_a.alt", "--reason", "audit done", "--by", "alice")
	e.cli(nil, "channel", "mode", "sandbox.wallet_a", "weighted", "--by", "alice")
	e.cli(nil, "channel", "pin", m.AppID, "wallet_a", "alt,default", "--by", "alice")
	e.cli(nil, "channel", "keywords", "account restricted", "账户受限", "--by", "alice")
	e.cli(nil, "merchant", "group", m.AppID, "vip", "--by", "alice")
	var list channelList
	e.cli(&list, "channel", "list", "--json")
	alt, ok := list.row("wallet_a.alt")
	if !ok || alt.Configured || alt.State != "closed" || alt.Weight != 5 {
		t.Fatalf("list: wallet_a.alt %+v (%v)", alt, ok)
	}
	if sb, ok := list.row("sandbox.wallet_a.default"); !ok || !sb.Configured || sb.Mode != "weighted" {
		t.Fatalf("list: the sandbox's default channel %+v (%v)", sb, ok)
	}
	if len(list.Keywords) != 2 || len(list.Pins) != 1 || list.Pins[0].AppID != m.AppID || len(list.Pins[0].IDs) != 2 {
		t.Fatalf("list: keywords %v, pins %+v", list.Keywords, list.Pins)
	}
	var text strings.Builder
	cmd := exec.Command(e.bin, "channel", "list")
	cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	cmd.Stdout = &text
	if err := cmd.Run(); err != nil || !strings.Contains(text.String(), "not configured") || !strings.Contains(text.String(), "10 / 500.00") {
		t.Fatalf("list as text: %v\n%s", err, text.String())
	}
	before := channelAudit(t, e.redisURL)
	refused := []struct {
		name string
		args []string
		want string
	}{
		{"markup in an id", []string{"set", "wallet_a.<b>", "--weight", "2"}, "want [sandbox.]<method>.<id>"},
		{"unknown method", []string{"show", "walletz.default"}, "want [sandbox.]<method>.<id>"},
		{"weight over the bound", []string{"set", "wallet_a.alt", "--weight", "5000"}, "weight 5000"},
		{"merchants and a group", []string{"set", "wallet_a.alt", "--merchants", "1", "--group", "vip"}, "give one"},
		{"bad cost", []string{"set", "wallet_a.alt", "--cost", "x:1"}, "BPS:FIXED"},
		{"nothing to set", []string{"set", "wallet_a.alt"}, "at least one flag"},
		{"a keyword that matches everything", []string{"keywords", "a"}, "keyword"},
		{"a breaker without a reason", []string{"breaker", "open", "wallet_a.alt"}, "--reason"},
		{"a pin for no merchant", []string{"pin", "999999", "wallet_a", "alt"}, "merchant"},
		{"an unknown mode", []string{"mode", "wallet_a", "random"}, "routing mode"},
		{"a bad group", []string{"set", "wallet_a.alt", "--group", "<i>vip"}, "group"},
	}
	for _, c := range refused {
		t.Run("refused/"+c.name, func(t *testing.T) {
			args := append(append([]string{"channel"}, c.args...), "--by", "alice")
			cmd := exec.Command(e.bin, args...)
			cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("gateway %v: %v\n%s", args, err, out)
			}
		})
	}
	rows := channelAudit(t, e.redisURL)
	if len(rows) != len(before) {
		t.Fatalf("refused changes wrote %d audit entries", len(rows)-len(before))
	}
	want := []string{"channel.set", "channel.set", "channel.disable", "channel.maintenance", "channel.breaker_open", "channel.breaker_close",
		"channel.mode", "channel.pin", "channel.keywords", "merchant.group"}
	if len(rows) != len(want) {
		t.Fatalf("audit %+v", rows)
	}
	for i, r := range rows {
		if r.Action != want[i] || r.Realm != audit.RealmCLI || r.ActorID != "alice" {
			t.Fatalf("audit entry %d: %+v, want %s by the CLI's alice", i, r, want[i])
		}
	}
	if rows[4].Details["reason"] != "<b>provider audit</b>" || rows[4].Details["channel"] != "wallet_a.alt" || rows[9].Details["group"] != "vip" {
		t.Fatalf("audit details %+v / %+v", rows[4].Details, rows[9].Details)
	}
}

// channelAudit is the {merchants} audit stream's channel and group entries.
func channelAudit(t *testing.T, url string) []audit.Row {
	t.Helper()
	all, err := audit.Read(context.Background(), redisOf(t, url), schema.AuditKey("{merchants}"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Row
	for _, r := range all {
		if strings.HasPrefix(r.Action, "channel.") || r.Action == "merchant.group" {
			out = append(out, r)
		}
	}
	return out
}
