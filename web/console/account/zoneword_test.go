package account

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"testing"
)

// TestTimesCarryTheirZone: a time in a sentence comes from whenText, which
// writes the viewer's zone; a message that adds "UTC" after it says the
// zone twice, or a wrong one.
func TestTimesCarryTheirZone(t *testing.T) {
	after := regexp.MustCompile(`\{(When|At|Till|Usable)\}\s*UTC`)
	for _, lang := range []string{"en", "es", "zh"} {
		raw, err := fs.ReadFile(Locales(), lang+".json")
		if err != nil {
			t.Fatal(err)
		}
		var msgs map[string]string
		if err := json.Unmarshal(raw, &msgs); err != nil {
			t.Fatal(err)
		}
		for id, m := range msgs {
			if after.MatchString(m) {
				t.Errorf("%s %s: %q names UTC after a time that carries the viewer's zone", lang, id, m)
			}
		}
	}
}
