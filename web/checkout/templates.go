package checkout

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"regexp"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pageNames are the pages; each is parsed with the layout and partials.
var pageNames = []string{"qr", "redirect", "waiting", "result", "choose", "usdt", "login", "error"}

// msgRef is a template's use of a message without parameters.
var msgRef = regexp.MustCompile(`\.L\.Msg\.([A-Za-z0-9_]+)`)

// checkMessages refuses a template that names a message cat lacks: a map
// index would render it blank where T showed the id.
func checkMessages(cat *Catalog) error {
	files, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return fmt.Errorf("list templates: %w", err)
	}
	for _, f := range files {
		b, err := templateFiles.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read %s: %w", f, err)
		}
		for _, m := range msgRef.FindAllSubmatch(b, -1) {
			if !cat.Has(string(m[1])) {
				return fmt.Errorf("%s: no message %s", f, m[1])
			}
		}
	}
	return nil
}

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
