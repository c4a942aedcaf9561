package console

import (
	"html/template"
	"time"
)

// funcs are the console's template helpers.
var funcs = template.FuncMap{
	"pct": func(f float64) float64 { return f * 100 },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
}
