package apidoc

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/paygate/gateway/platform"
)

// TestErrorKindsAreTheTable holds the document's error kinds to platform's
// one table from kinds to status: a kind added there must be described here.
func TestErrorKindsAreTheTable(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				ErrorKind struct {
					Enum []string `json:"enum"`
				} `json:"ErrorKind"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for k := range platform.Kinds() {
		want = append(want, string(k))
	}
	got := slices.Clone(doc.Components.Schemas.ErrorKind.Enum)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("document's error kinds %v, platform's %v", got, want)
	}
}

// TestServersFollowPublicURL: each served document's one server is the
// gateway's public URL, and nothing else of the document changes.
func TestServersFollowPublicURL(t *testing.T) {
	docs := []struct {
		name  string
		file  []byte
		serve func(string) ([]byte, error)
	}{
		{"openapi.json", Document(), ForServer},
		{"epay.json", EpayDocument(), EpayForServer},
	}
	for _, d := range docs {
		for _, url := range []string{"http://127.0.0.1:8090", "https://pay.example.com/gw"} {
			t.Run(d.name+" "+url, func(t *testing.T) {
				doc, err := d.serve(url)
				if err != nil {
					t.Fatal(err)
				}
				var got map[string]any
				if err := json.Unmarshal(doc, &got); err != nil {
					t.Fatalf("served document: %v", err)
				}
				servers, _ := got["servers"].([]any)
				if len(servers) != 1 || servers[0].(map[string]any)["url"] != url {
					t.Fatalf("servers %v, want only %s", got["servers"], url)
				}
				var orig map[string]any
				_ = json.Unmarshal(d.file, &orig)
				delete(orig, "servers")
				delete(got, "servers")
				a, _ := json.Marshal(orig)
				b, _ := json.Marshal(got)
				if string(a) != string(b) {
					t.Fatal("more than servers changed")
				}
			})
		}
	}
}
