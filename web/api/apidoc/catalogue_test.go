package apidoc

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/gateway/events"
)

// TestWebhooksAreTheCatalogue holds the document's top-level webhooks to
// events.Catalogue: every type has its entry, every entry named like a type
// ("<object>.<what>") is one, its body's type is that type and its data the
// object the catalogue says. (paid and refund are SPEC.md's callbacks.)
func TestWebhooksAreTheCatalogue(t *testing.T) {
	var doc struct {
		Webhooks map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct {
						Schema struct {
							Required   []string `json:"required"`
							Properties struct {
								Type struct {
									Const string `json:"const"`
								} `json:"type"`
								Data struct {
									Ref string `json:"$ref"`
								} `json:"data"`
							} `json:"properties"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	data := map[string]string{"order": "Order", "refund": "EventRefundData", "payout": "Payout",
		"destination": "EventDestinationData", "balance": "Balance", "endpoint": "EventEndpointData"}
	for _, info := range events.Catalogue {
		t.Run(string(info.Type), func(t *testing.T) {
			w, ok := doc.Webhooks[string(info.Type)]
			if !ok {
				t.Fatal("no webhooks entry")
			}
			s := w.Post.RequestBody.Content["application/json"].Schema
			if s.Properties.Type.Const != string(info.Type) || !slices.Equal(s.Required, []string{"id", "type", "created_at", "version", "data"}) {
				t.Fatalf("body type %q, required %v", s.Properties.Type.Const, s.Required)
			}
			if want := "#/components/schemas/" + data[info.Object]; s.Properties.Data.Ref != want {
				t.Fatalf("data %q, want %q (object %s)", s.Properties.Data.Ref, want, info.Object)
			}
		})
	}
	for name := range doc.Webhooks {
		if strings.Contains(name, ".") && !events.Known(events.Type(name)) {
			t.Errorf("webhooks entry %s is not in the catalogue", name)
		}
	}
}
