package checkout

import (
	"embed"
	"fmt"
	"slices"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"github.com/paygate/gateway/schema"
)

//go:embed locales/*.json
var localeFiles embed.FS

// Catalog is one language's messages. Messages without parameters are
// looked up once at start-up (a page shows dozens of them and renders
// thousands of times a second); those with parameters go through the
// library each time.
type Catalog struct {
	Lang string
	// Msg is every message without parameters, by id. The templates read
	// it as {{.L.Msg.id}}: a map index costs text/template a fraction of a
	// method call (found by name and called through reflect each time),
	// which made up a fifth of a page's render. checkMessages refuses at
	// start-up an id the templates use and the catalogue lacks.
	Msg map[string]string
	loc *i18n.Localizer
	// names are the deployment's method names in this language.
	names map[schema.Method]string
}

// catalogs loads every language of schema.Langs; a language whose file
// lacks a message of the English one is refused, so a missing translation
// is a start-up error, not a blank on a payer's page.
func catalogs() (map[string]*Catalog, error) {
	bundle := i18n.NewBundle(language.English)
	ids := map[string][]string{}
	for _, lang := range schema.Langs {
		f, err := bundle.LoadMessageFileFS(localeFiles, "locales/"+lang+".json")
		if err != nil {
			return nil, fmt.Errorf("load %s messages: %w", lang, err)
		}
		for _, m := range f.Messages {
			ids[lang] = append(ids[lang], m.ID)
		}
		slices.Sort(ids[lang])
	}
	out := map[string]*Catalog{}
	for _, lang := range schema.Langs {
		if !slices.Equal(ids[lang], ids["en"]) {
			return nil, fmt.Errorf("%s messages differ from the English ones", lang)
		}
		c := &Catalog{Lang: lang, Msg: map[string]string{}, loc: i18n.NewLocalizer(bundle, lang)}
		for _, id := range ids[lang] {
			s, err := c.loc.Localize(&i18n.LocalizeConfig{MessageID: id})
			if err != nil {
				return nil, fmt.Errorf("%s message %s: %w", lang, id, err)
			}
			c.Msg[id] = s
		}
		out[lang] = c
	}
	return out, nil
}

// T is a message; with pairs of name and value, the message's parameters.
// An unknown id shows as itself, which tests look for.
func (c *Catalog) T(id string, pairs ...any) string {
	if len(pairs) == 0 {
		if s, ok := c.Msg[id]; ok {
			return s
		}
		return id
	}
	data := make(map[string]any, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		data[fmt.Sprint(pairs[i])] = pairs[i+1]
	}
	s, err := c.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil {
		return id
	}
	return s
}

// Has reports whether id is a message, for ids built from data (a method's
// name, an error kind's text).
func (c *Catalog) Has(id string) bool { _, ok := c.Msg[id]; return ok }

// Method is a method's name as payers read it: the deployment's, else the
// catalogue's neutral word.
func (c *Catalog) Method(m schema.Method) string {
	if s, ok := c.names[m]; ok {
		return s
	}
	return c.T("method_" + string(m))
}

// withNames gives every catalogue the deployment's method names.
func withNames(cats map[string]*Catalog, n MethodNames) {
	for lang, c := range cats {
		c.names = map[schema.Method]string{}
		for _, m := range schema.AllMethods() {
			if s := n.name(lang, m); s != "" {
				c.names[m] = s
			}
		}
	}
}
