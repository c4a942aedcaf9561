package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
)

// sdkRunners are the official SDKs' own test runners, each run from its
// folder under sdk/ against the real binary. A runner reads what it needs
// from sdkEnv's variables; its tests may create orders, pay them through the
// sandbox driver and receive webhooks on a loopback address of their own.
var sdkRunners = []struct {
	name string
	dir  string
	cmd  []string
}{
	{"php", "php", []string{"php", "tests/run.php"}},
	{"python", "python", []string{"python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."}},
	{"node", "node", []string{"sh", "scripts/test.sh"}},
	{"go", "go", []string{"go", "test", "-count=1", "./..."}},
}

// TestSDKs runs every SDK's own test suite against one gateway (make
// test-sdk runs only this): the SDKs and the binary cannot drift apart.
// A missing interpreter skips on a developer's machine and fails under
// CI=true (scripts/deps.sh installs them).
func TestSDKs(t *testing.T) {
	t.Parallel() // mostly waiting on the SDKs' runners, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate") // the listing an SDK pages through is ClickHouse's
	s := e.serve()
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "SDK shop", "--sandbox", "--json")
	root := testenv.ModuleRoot(t)
	env := sdkEnv(s, shop, root)
	for _, r := range sdkRunners {
		t.Run(r.name, func(t *testing.T) {
			dir := filepath.Join(root, "sdk", r.dir)
			if _, err := os.Stat(dir); err != nil {
				testenv.Skipf(t, "no sdk/%s", r.dir)
			}
			cmd := exec.Command(testenv.Tool(t, r.cmd[0]), r.cmd[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("sdk/%s: %s: %v\n%s", r.dir, strings.Join(r.cmd, " "), err, out.String())
			}
			t.Logf("sdk/%s:\n%s", r.dir, out.String())
		})
	}
}

// sdkEnv is what an SDK's tests are told: the gateway, a sandbox merchant's
// credentials (its webhook secret signs the webhook-* headers of its paid
// webhooks), where the signature vectors are, and where the node tools are.
func sdkEnv(s *server, shop account, root string) []string {
	return []string{
		"GATEWAY_SDK_BASE_URL=" + s.base,
		"GATEWAY_SDK_APPID=" + shop.AppID,
		"GATEWAY_SDK_API_KEY=" + shop.APIKey,
		"GATEWAY_SDK_QUERY_KEY=" + shop.QueryKey,
		"GATEWAY_SDK_WEBHOOK_SECRET=" + shop.WebhookSecret,
		"GATEWAY_SDK_SIGN_VECTORS=" + filepath.Join(root, "schema", "testdata", "sign-vectors.json"),
		"GATEWAY_SDK_OPENAPI=" + filepath.Join(root, "web", "api", "apidoc", "openapi.json"),
		"GATEWAY_SDK_NPM=" + filepath.Join(root, ".deps", "npm", "node_modules"),
	}
}
