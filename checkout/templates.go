package checkout

import (
	"embed"
	"fmt"
	"html/template"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pageNames are the pages; each is parsed with the layout and partials.
var pageNames = []string{"qr", "redirect", "waiting", "result", "select", "fiatpsp", "cryptopsp", "usdt", "login", "error"}

func parseTemplates() (map[string]*template.Template, error) {
	base, err := template.ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}
