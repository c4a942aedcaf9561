package account

import (
	"html"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/testenv"
)

// TestSDKDocsAreTheREADMEs: every SDK under sdk/ is listed, and the console
// holds its README as it is (cp sdk/<lang>/README.md
// web/console/account/sdkdocs/<lang>.md after changing one).
func TestSDKDocsAreTheREADMEs(t *testing.T) {
	root := testenv.ModuleRoot(t)
	dirs, err := os.ReadDir(filepath.Join(root, "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	var langs []string
	for _, s := range sdkDocs {
		langs = append(langs, s.Lang)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			if !slices.Contains(langs, d.Name()) {
				t.Fatalf("sdk/%s is not listed in sdkDocs", d.Name())
			}
			want, err := os.ReadFile(filepath.Join(root, "sdk", d.Name(), "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := sdkDocFiles.ReadFile("sdkdocs/" + d.Name() + ".md")
			if err != nil || string(got) != string(want) {
				t.Fatalf("sdkdocs/%s.md is not sdk/%s/README.md (err %v): copy it again", d.Name(), d.Name(), err)
			}
		})
	}
}

// TestSDKPages: every role reads the Developers page's SDK links and each
// README; an SDK we do not have is 404, and the README's markup is text.
func TestSDKPages(t *testing.T) {
	e := newEnv(t)
	var viewer *access.Session
	for _, role := range allRoles {
		s := e.person(role)
		if role == access.RoleViewer {
			viewer = s
		}
		status, body := e.page(s, "/developers")
		if status != http.StatusOK || !strings.Contains(body, "data-sdks") {
			t.Fatalf("%s: developers %d, SDK list shown %v", role, status, strings.Contains(body, "data-sdks"))
		}
		for _, sdk := range shownSDKs() {
			if !strings.Contains(body, base+"/developers/sdk/"+sdk.Lang) {
				t.Fatalf("%s: no link to the %s SDK", role, sdk.Lang)
			}
			status, page := e.page(s, "/developers/sdk/"+sdk.Lang)
			raw, _ := sdkDocFiles.ReadFile("sdkdocs/" + sdk.Lang + ".md")
			if status != http.StatusOK || !strings.Contains(page, html.EscapeString(string(raw))[:200]) {
				t.Fatalf("%s: the %s SDK page %d, README shown escaped: %v", role, sdk.Lang, status, strings.Contains(page, html.EscapeString(string(raw))[:200]))
			}
		}
	}
	if status, _ := e.page(viewer, "/developers/sdk/cobol"); status != http.StatusNotFound {
		t.Fatalf("an unknown SDK: %d, want 404", status)
	}
	if status, _ := e.page(nil, "/developers/sdk/php"); status == http.StatusOK {
		t.Fatal("an SDK page without a session answered 200")
	}
}
