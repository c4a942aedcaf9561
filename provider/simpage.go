package provider

import (
	"html/template"
	"io"
)

// SimPage is a simulated provider page: what the payer would see at the
// provider, reduced to the payment and a Pay and a Fail button.
type SimPage struct {
	Provider    string // the family's neutral name
	Amount      string
	Currency    string
	Description string
	Action      string            // where the form posts the tester's choice
	Hidden      map[string]string // fields the form carries back
	Done        string            // set once settled: what happened
}

var simPage = template.Must(template.New("sim").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Provider}} (sandbox)</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.box{border:1px solid #bbb;border-radius:8px;padding:1.25rem}.amt{font-size:1.6rem;font-weight:600}
button{font-size:1rem;padding:.6rem 1.2rem;margin:.4rem .4rem 0 0;border-radius:6px;border:1px solid #555;cursor:pointer}
.pay{background:#0b6b2f;color:#fff}.fail{background:#fff;color:#8b0000}.note{color:#555;font-size:.9rem}</style></head>
<body><main class="box"><p class="note">Simulated provider: {{.Provider}} — sandbox, no real money.</p>
<p class="amt">{{.Amount}} {{.Currency}}</p>{{with .Description}}<p>{{.}}</p>{{end}}
{{if .Done}}<p role="status">{{.Done}}</p>{{else}}<form method="post" action="{{.Action}}">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">{{end}}
<button class="pay" name="outcome" value="pay">Pay</button><button class="fail" name="outcome" value="fail">Fail</button>
</form>{{end}}</main></body></html>`))

// Render writes the page.
func (p SimPage) Render(w io.Writer) error { return simPage.Execute(w, p) }
