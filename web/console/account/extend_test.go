package account

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/paygate/gateway/web/frame"
)

// TestExtendRefusesTheConsolesNames: the pages join a console's frame
// without replacing any template, message or helper of its own.
func TestExtendRefusesTheConsolesNames(t *testing.T) {
	clash := func(file, body string) fstest.MapFS { return fstest.MapFS{file: {Data: []byte(body)}} }
	for _, tt := range []struct {
		name string
		deps frame.Deps
		want string
	}{
		{"template", frame.Deps{Templates: clash("desk_team.html", "x"), Locales: consoleLocales()}, "template desk_team.html"},
		{"message", frame.Deps{Templates: consoleTemplates, Locales: func() fstest.MapFS {
			m := fstest.MapFS{}
			for _, l := range frame.Langs {
				m[l+".json"] = &fstest.MapFile{Data: []byte(`{"desk_save":"mine"}`)}
			}
			return m
		}()}, "message desk_save"},
		{"helper", frame.Deps{Templates: consoleTemplates, Locales: consoleLocales(), Funcs: map[string]any{"deskAt": func() string { return "" }}}, "func deskAt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := New(nil, "", nil).Extend(&tt.deps); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Extend: %v, want a refusal naming %s", err, tt.want)
			}
		})
	}
	d := frame.Deps{Templates: consoleTemplates, Locales: consoleLocales(), Nav: []frame.NavItem{{Path: "/", Label: "test_home"}}}
	if err := New(nil, "", nil).Extend(&d); err != nil {
		t.Fatal(err)
	}
	if len(d.Nav) != 6 || d.Nav[0].Path != "/" || d.Funcs["deskAt"] == nil {
		t.Fatalf("extended deps: nav %v", d.Nav)
	}
}
