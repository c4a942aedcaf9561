package frame

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
)

//go:embed locales/*.json
var frameLocales embed.FS

// Langs are the consoles' languages, the payer pages' ones; en is the
// default and the reference every other catalogue must match.
var Langs = []string{"en", "zh", "es"}

// Catalog is one language's messages: the frame's and the console's.
// Templates read {{.L.Msg.id}} for plain text and {{.L.T "id" "Name" v}}
// for a message with {Name} parameters.
type Catalog struct {
	Lang string
	Msg  map[string]string
	// methods are the payers' names of the methods in this language
	// (Deps.MethodNames).
	methods map[string]string
}

// Method is a method's name as its payers read it; the code itself when
// the console was given no names.
func (c *Catalog) Method(code string) string {
	if s := c.methods[code]; s != "" {
		return s
	}
	return code
}

// loadCatalogs merges the frame's messages with the console's, per
// language. A language lacking an English id (or having one English
// lacks) is refused: a missing translation is a start-up error, not a
// blank on a page. An id both define is refused too.
func loadCatalogs(app fs.FS) (map[string]*Catalog, error) {
	out := map[string]*Catalog{}
	for _, lang := range Langs {
		msgs, err := readMessages(frameLocales, "locales/"+lang+".json")
		if err != nil {
			return nil, err
		}
		if app != nil {
			own, err := readMessages(app, lang+".json")
			if err != nil {
				return nil, err
			}
			for id, s := range own {
				if _, dup := msgs[id]; dup {
					return nil, fmt.Errorf("frame: message %s is the frame's; name it otherwise", id)
				}
				msgs[id] = s
			}
		}
		out[lang] = &Catalog{Lang: lang, Msg: msgs}
	}
	en := slices.Sorted(maps.Keys(out["en"].Msg))
	for _, lang := range Langs {
		if got := slices.Sorted(maps.Keys(out[lang].Msg)); !slices.Equal(got, en) {
			return nil, fmt.Errorf("frame: %s messages differ from the English ones", lang)
		}
	}
	return out, nil
}

func readMessages(fsys fs.FS, name string) (map[string]string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("frame: read %s: %w", name, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("frame: parse %s: %w", name, err)
	}
	return m, nil
}

// T is message id with its {Name} parameters filled from pairs of name
// and value. An unknown id shows as itself, which tests look for.
func (c *Catalog) T(id string, pairs ...any) string {
	s, ok := c.Msg[id]
	if !ok {
		return id
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, "{"+fmt.Sprint(pairs[i])+"}", fmt.Sprint(pairs[i+1]))
	}
	return s
}

// Has reports whether id is a message, for ids built from data.
func (c *Catalog) Has(id string) bool { _, ok := c.Msg[id]; return ok }
