package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// AxeEnv names axe-core's axe.min.js; unset, it is the copy scripts/axe.sh
// installs under the repository's .deps/axe.
const AxeEnv = "AXE_CORE_JS"

var axe struct {
	once sync.Once
	src  string
	err  error
}

func axeSource() (string, error) {
	axe.once.Do(func() {
		path := os.Getenv(AxeEnv)
		if path == "" {
			root, err := repoRoot()
			if err != nil {
				axe.err = err
				return
			}
			path = filepath.Join(root, ".deps", "axe", "node_modules", "axe-core", "axe.min.js")
		}
		b, err := os.ReadFile(path)
		axe.src, axe.err = string(b), err
	})
	return axe.src, axe.err
}

// Violation is one axe-core rule the page breaks.
type Violation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"` // the offending elements' selectors
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
}

// CheckA11y runs axe-core on the page as it is now (WCAG 2.x A and AA
// rules and axe's best practices) and fails t on every serious or critical
// violation. axe is injected through the DevTools protocol, which the
// page's CSP does not govern. Without axe-core installed the check fails
// under CI=true and is skipped with a note elsewhere (scripts/axe.sh
// installs it).
func (l Look) CheckA11y(t testing.TB, what string) {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("browser: axe-core is not installed (%v); scripts/axe.sh installs it", err)
		}
		t.Logf("browser: axe-core is not installed (%v): accessibility of %s not checked; run scripts/axe.sh", err, what)
		return
	}
	var loaded bool
	l.p.Eval(`typeof window.axe === "object"`, &loaded)
	if !loaded {
		l.p.Eval("(() => {"+src+"\n; return true })()", &loaded)
	}
	var found []Violation
	l.p.Eval(`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}})
		.then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" "))})))`, &found)
	for _, v := range found {
		t.Errorf("browser: %s at %d px: accessibility: %s", what, l.p.width, v)
	}
}
