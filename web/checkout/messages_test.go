package checkout

import (
	"maps"
	"testing"
)

// TestCheckMessages: every {{.L.Msg.id}} of the templates must be in the
// catalogue, else the page would show a blank; checkMessages says which.
func TestCheckMessages(t *testing.T) {
	cats, err := catalogs()
	if err != nil {
		t.Fatal(err)
	}
	without := func(id string) *Catalog {
		c := *cats["en"]
		c.Msg = maps.Clone(c.Msg)
		delete(c.Msg, id)
		return &c
	}
	cases := []struct {
		name    string
		cat     *Catalog
		wantErr bool
	}{
		{"every language's catalogue", cats["zh"], false},
		{"a catalogue without a message the layout uses", without("brand"), true},
		{"a catalogue without a message the select page uses", without("continue"), true},
		{"a catalogue without a message only T uses", without("limits_both"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := checkMessages(tc.cat)
			if (err != nil) != tc.wantErr {
				t.Fatalf("checkMessages: %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}
