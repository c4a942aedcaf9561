package apidoc

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// redoclyLint is what `redocly lint --format json` prints.
type redoclyLint struct {
	Totals struct {
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
		Ignored  int `json:"ignored"`
	} `json:"totals"`
	Problems []struct {
		RuleID   string `json:"ruleId"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Location []struct {
			Pointer string `json:"pointer"`
			Start   struct {
				Line int `json:"line"`
			} `json:"start"`
		} `json:"location"`
	} `json:"problems"`
}

// TestDocumentsLintClean runs Redocly CLI's recommended rules over every
// document the gateway serves and fails on any error or warning: generated
// clients and the SDKs' checks read these documents, and a problem the
// linter names (an operation without security or operationId, an example
// that breaks its schema) is one a reader would trip on too. Redocly runs
// in an empty directory, so no config or ignore file can soften the rules.
func TestDocumentsLintClean(t *testing.T) {
	root := testenv.ModuleRoot(t)
	node := testenv.Tool(t, "node")
	cli := filepath.Join(root, ".deps", "npm", "node_modules", "@redocly", "cli", "bin", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		testenv.Skipf(t, "Redocly CLI is not installed in .deps/npm (%v): scripts/npm-tools.sh installs it", err)
	}
	for _, doc := range []string{"openapi.json", "epay.json"} {
		t.Run(doc, func(t *testing.T) {
			got := lint(t, node, cli, filepath.Join(root, "web", "api", "apidoc", doc))
			for _, p := range got.Problems {
				at := ""
				if len(p.Location) > 0 {
					at = p.Location[0].Pointer
				}
				t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, at, p.Message)
			}
			if got.Totals.Errors+got.Totals.Warnings+got.Totals.Ignored != 0 {
				t.Errorf("totals %+v, want none", got.Totals)
			}
		})
	}
}

// lint runs redocly lint with the recommended rules on path and decodes
// its report.
func lint(t *testing.T, node, cli, path string) redoclyLint {
	t.Helper()
	cmd := exec.Command(node, cli, "lint", "--extends", "recommended", "--format", "json", path)
	cmd.Dir = t.TempDir()
	// Nothing leaves the machine: no usage report, no update check.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true",
		"REDOCLY_SUPPRESS_NOTIFICATIONS=true", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run() // a non-zero exit is how it reports errors: read the report first
	var got redoclyLint
	if jerr := json.Unmarshal(stdout.Bytes(), &got); jerr != nil {
		t.Fatalf("redocly lint %s: %v (report: %v)\nstdout: %s\nstderr: %s", path, err, jerr, stdout.Bytes(), stderr.Bytes())
	}
	return got
}
