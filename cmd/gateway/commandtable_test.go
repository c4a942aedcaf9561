package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCommandTableInHelp: `gateway --help` lists every command dispatch
// knows, and names no command it does not.
func TestCommandTableInHelp(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)\s`).FindAllStringSubmatch(help, -1) {
		listed[m[1]] = true
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			if !listed[c.name] {
				t.Fatalf("gateway --help does not list %q:\n%s", c.name, help)
			}
		})
	}
	for name := range listed {
		if _, ok := lookup(name); !ok && name != "help" {
			t.Errorf("gateway --help lists %q, which no command runs", name)
		}
	}
}

// TestCommandTableLists: every list subcommand of the command table takes
// --json and prints JSON (an empty list as [], never null), and prints a
// table or, when empty, "no <things>" without it; run on a fresh database,
// then with a merchant for those that list one merchant's things.
func TestCommandTableLists(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	for _, c := range commands {
		for _, list := range c.lists {
			args := append([]string{c.name}, list...)
			for i := range args {
				if args[i] == "APPID" {
					args[i] = shop.AppID
				}
			}
			t.Run(strings.Join(append([]string{c.name}, list...), " "), func(t *testing.T) {
				if help := e.output(t, append(slices.Clone(args), "--help")...); !strings.Contains(help, "-json") {
					t.Fatalf("%v --help has no --json:\n%s", args, help)
				}
				raw := e.output(t, append(slices.Clone(args), "--json")...)
				var v any
				if err := json.Unmarshal([]byte(raw), &v); err != nil || strings.Contains(raw, "null") {
					t.Fatalf("%v --json printed %q (%v)", args, raw, err)
				}
				text := e.output(t, args...)
				if !tableOrNone.MatchString(text) {
					t.Fatalf("%v printed neither a table nor \"no ...\":\n%s", args, text)
				}
				if emptyJSON(v) && !noneLine.MatchString(text) {
					t.Fatalf("%v lists nothing (%s) but does not say \"no ...\":\n%s", args, raw, text)
				}
			})
		}
	}
}

// tableOrNone is a list's printout: a header line in capitals, or a line
// saying there is nothing.
var tableOrNone = regexp.MustCompile(`(?m)^\s*([A-Z][A-Z #]+(  +[A-Z][A-Z #]*)+\s*$|no [a-zA-Z ]+( \(.+\))?$)`)

// noneLine is how every list says it has nothing.
var noneLine = regexp.MustCompile(`(?m)^no [a-zA-Z ]+( \(.+\))?$`)

// emptyJSON: a list's JSON with nothing in it, an empty array or an object
// whose arrays are all empty.
func emptyJSON(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		arrays := 0
		for _, f := range v {
			if a, ok := f.([]any); ok {
				if len(a) > 0 {
					return false
				}
				arrays++
			}
		}
		return arrays > 0
	}
	return false
}

// output runs a gateway subcommand over the test's servers and answers its
// standard output.
func (e *e2e) output(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gateway %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestAddPrintsTheSameShape: `console-user add` and `operator add` print a
// new account the same way, as text and as JSON: who, the role, the setup
// link on a line of its own.
func TestAddPrintsTheSameShape(t *testing.T) {
	t.Parallel()
	e := newE2ERedis(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	shape := regexp.MustCompile(`^(console user|operator) \S+@\S+ \((owner|admin)\)( of merchant \d+)?: setup link \(one use, 72 h; send it to the person, it is shown only now\):\nhttp://\S+/setup/\S+\n$`)
	tests := []struct {
		name string
		args []string
	}{
		{"console-user add", []string{"console-user", "add", shop.AppID, "%s@shop.test", "--role", "owner"}},
		{"operator add", []string{"operator", "add", "%s@ops.test", "--role", "admin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := func(who string) []string {
				a := slices.Clone(tc.args)
				for i := range a {
					a[i] = strings.Replace(a[i], "%s", who, 1)
				}
				return a
			}
			if text := e.output(t, args("text")...); !shape.MatchString(text) {
				t.Fatalf("%s printed %q", tc.name, text)
			}
			var v map[string]any
			e.cli(&v, append(args("json"), "--json")...)
			for _, k := range []string{"id", "email", "role", "setupLink"} {
				if s, _ := v[k].(string); s == "" {
					t.Fatalf("%s --json has no %s: %v", tc.name, k, v)
				}
			}
		})
	}
}
