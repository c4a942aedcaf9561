package frame

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"regexp"
	"strings"
	"time"
)

//go:embed templates/*.html
var frameTemplates embed.FS

// framePages are the frame's own pages; a console's page may not take
// their names.
var framePages = []string{"login", "setup", "setup_done", "error", "zone"}

// msgRef is a template's use of a message: {{.L.Msg.id}} or {{.L.T "id"}}.
var msgRef = regexp.MustCompile(`\.L\.Msg\.([A-Za-z0-9_]+)|\.L\.T "([A-Za-z0-9_]+)"`)

// funcs are the helpers every template has.
func funcs(extra template.FuncMap) template.FuncMap {
	f := template.FuncMap{
		"add":      func(a, b int) int { return a + b },
		"time":     func(t time.Time) template.HTML { return When(t, time.UTC) },
		"when":     func(t time.Time) template.HTML { return When(t, time.UTC) },
		"whenText": func(t time.Time) string { return WhenText(t, time.UTC) },
		"join":     strings.Join,
	}
	maps.Copy(f, extra)
	return f
}

// parseTemplates parses the layout and every partial (the frame's and the
// console's "_" files) once, then each page over a clone of that.
func parseTemplates(app fs.FS, extra template.FuncMap, en *Catalog) (map[string]*template.Template, error) {
	base, err := template.New("layout").Funcs(funcs(extra)).ParseFS(frameTemplates, "templates/layout.html", "templates/_*.html")
	if err != nil {
		return nil, fmt.Errorf("frame: parse layout: %w", err)
	}
	if parts, _ := fs.Glob(app, "_*.html"); len(parts) > 0 {
		if base, err = base.ParseFS(app, parts...); err != nil {
			return nil, fmt.Errorf("frame: parse partials: %w", err)
		}
	}
	out := map[string]*template.Template{}
	add := func(fsys fs.FS, file, name string) error {
		if err := checkMessages(fsys, file, en); err != nil {
			return err
		}
		t, err := template.Must(base.Clone()).ParseFS(fsys, file)
		if err != nil {
			return fmt.Errorf("frame: parse page %s: %w", name, err)
		}
		out[name] = t
		return nil
	}
	for _, p := range framePages {
		if err := add(frameTemplates, "templates/"+p+".html", p); err != nil {
			return nil, err
		}
	}
	files, err := fs.Glob(app, "*.html")
	if err != nil {
		return nil, fmt.Errorf("frame: list pages: %w", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".html")
		if strings.HasPrefix(name, "_") {
			if err := checkMessages(app, f, en); err != nil {
				return nil, err
			}
			continue
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("frame: page %s is the frame's; name it otherwise", name)
		}
		if err := add(app, f, name); err != nil {
			return nil, err
		}
	}
	for _, f := range []string{"templates/layout.html", "templates/_charts.html", "templates/_pager.html"} {
		if err := checkMessages(frameTemplates, f, en); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkMessages refuses a template that names a message the catalogue
// lacks: a map index would render it blank.
func checkMessages(fsys fs.FS, file string, cat *Catalog) error {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return fmt.Errorf("frame: read %s: %w", file, err)
	}
	for _, m := range msgRef.FindAllSubmatch(b, -1) {
		id := string(m[1]) + string(m[2])
		if !cat.Has(id) {
			return fmt.Errorf("frame: %s: no message %s", file, id)
		}
	}
	return nil
}
