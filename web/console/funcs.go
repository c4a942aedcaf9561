package console

import "html/template"

// funcs are the console's template helpers; times are the frame's (when).
var funcs = template.FuncMap{
	"pct": func(f float64) float64 { return f * 100 },
}
