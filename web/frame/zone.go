package frame

import (
	"html/template"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
)

// When is how every console shows a moment: in the viewer's zone, with
// the zone's offset written out ("2026-11-28 18:42:05 GMT+8") and its
// IANA name in a tooltip, the instant itself in datetime. Templates call
// it as {{when t}} or {{time t}}; a zero time is "—".
func When(t time.Time, loc *time.Location) template.HTML {
	if t.IsZero() {
		return "—"
	}
	if loc == nil {
		loc = time.UTC
	}
	local := t.In(loc)
	return template.HTML(`<time datetime="` + t.UTC().Format(time.RFC3339) + `" title="` + template.HTMLEscapeString(loc.String()) + `">` +
		local.Format("2006-01-02 15:04:05") + " " + Offset(local) + `</time>`)
}

// Offset is t's zone offset as people read it: UTC, GMT+8, GMT+5:30,
// GMT-3.
func Offset(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := "GMT" + sign + strconv.Itoa(off/3600)
	if m := off % 3600 / 60; m != 0 {
		s += ":" + strconv.Itoa(m/10) + strconv.Itoa(m%10)
	}
	return s
}

// WhenText is When as plain text, for a moment inside a sentence (a
// message's parameter is escaped, so markup would show): the viewer's zone,
// to the minute, with its offset.
func WhenText(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	if loc == nil {
		loc = time.UTC
	}
	local := t.In(loc)
	return local.Format("2006-01-02 15:04") + " " + Offset(local)
}

// zoneFuncs are the time helpers of templates rendered in loc.
func zoneFuncs(loc *time.Location) template.FuncMap {
	f := func(t time.Time) template.HTML { return When(t, loc) }
	return template.FuncMap{"when": f, "time": f, "whenText": func(t time.Time) string { return WhenText(t, loc) }}
}

// zoned keeps one copy of the pages per zone viewers chose: a template's
// helpers are bound when it is cloned, and a clone cannot be made of a
// template that has run, so the parsed pages stay unrun and each zone's
// copy is cloned from them once.
type zoned struct {
	pristine map[string]*template.Template
	mu       sync.Mutex
	byZone   map[string]map[string]*template.Template
}

// page is page name rendered in loc.
func (z *zoned) page(name string, loc *time.Location) (*template.Template, bool, error) {
	if loc == nil {
		loc = time.UTC
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	set, ok := z.byZone[loc.String()]
	if !ok {
		set = map[string]*template.Template{}
		for n, t := range z.pristine {
			c, err := t.Clone()
			if err != nil {
				return nil, false, err
			}
			set[n] = c.Funcs(zoneFuncs(loc))
		}
		z.byZone[loc.String()] = set
	}
	t, ok := set[name]
	return t, ok, nil
}

// zoneOf is the zone the viewer chose (access.Session.TimeZone), UTC for
// none or one this build does not know.
func zoneOf(s *access.Session) *time.Location {
	if s == nil {
		return time.UTC
	}
	loc, err := access.ParseZone(s.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Zones offered on the time zone page (any IANA name is taken).
var Zones = []string{"UTC", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Singapore", "Asia/Dhaka", "Asia/Kolkata", "Asia/Tokyo",
	"Asia/Dubai", "Europe/London", "Europe/Berlin", "Europe/Madrid", "America/New_York", "America/Chicago", "America/Los_Angeles",
	"America/Mexico_City", "America/Sao_Paulo", "Australia/Sydney", "Africa/Lagos"}

// zoneData is the time zone page.
type zoneData struct {
	Zone    string // the viewer's zone now
	Example template.HTML
	Zones   []string
	Value   string // what was typed, kept on a refusal
}

// zonePage shows the viewer's zone and the form to choose another.
func (u *UI) zonePage(c *fiber.Ctx) error {
	v := u.View(c, "zone_title")
	loc := zoneOf(v.Session)
	v.Data = zoneData{Zone: loc.String(), Example: When(time.Now(), loc), Zones: Zones, Value: loc.String()}
	if c.Query("done") == "1" {
		v.Flash = v.L.T("zone_saved", "Zone", loc.String())
	}
	return u.Render(c, "zone", v)
}

// zonePost keeps the zone chosen with the viewer's account.
func (u *UI) zonePost(c *fiber.Ctx) error {
	s := SessionOf(c)
	zone := strings.TrimSpace(c.FormValue("zone"))
	if err := u.auth.SetTimeZone(c.UserContext(), s, zone); err != nil {
		v := u.View(c, "zone_title")
		loc := zoneOf(s)
		v.Data = zoneData{Zone: loc.String(), Example: When(time.Now(), loc), Zones: Zones, Value: strings.Clone(zone)}
		v.Problem = v.L.T("zone_bad")
		v.Status = fiber.StatusBadRequest
		return u.Render(c, "zone", v)
	}
	return u.Redirect(c, u.cfg.Base+"/zone?done=1")
}
