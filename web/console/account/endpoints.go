package account

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/web/frame"
)

// endpointDesk is the routes of the merchant's webhook endpoints: their
// panel on the Webhooks page and each endpoint's own page with its
// deliveries.
type endpointDesk struct{ handlers }

// endpointsPanel is the Webhooks page's endpoints part.
type endpointsPanel struct {
	Served    bool // this node keeps endpoints
	NeedsTOTP bool // the person's role may add one but they have no TOTP
	List      []events.Endpoint
	Catalogue []events.Info
	// Added is the endpoint just added, with its secret shown this once.
	Added *events.Endpoint
	// URL, Description and Problem are the add form as typed when it was
	// refused, with the refusal next to it.
	URL, Description, Problem string
}

// failing is the endpoints the gateway disabled for failing, for the
// page's banner.
func (p endpointsPanel) Failing() []events.Endpoint {
	var out []events.Endpoint
	for _, ep := range p.List {
		if ep.DisabledWhy == "failing" {
			out = append(out, ep)
		}
	}
	return out
}

// panel reads the endpoints for the Webhooks page.
func (h endpointDesk) panel(c *fiber.Ctx) (endpointsPanel, error) {
	p := endpointsPanel{Catalogue: events.Catalogue}
	if p.Served, _ = h.p.svc.Endpoints.Served(); !p.Served {
		return p, nil
	}
	list, err := h.p.svc.Endpoints.List(c.UserContext(), h.ui.Actor(c))
	if err != nil {
		return p, err
	}
	p.List = list
	p.NeedsTOTP, err = h.p.svc.Endpoints.NeedsTOTP(c.UserContext(), h.ui.Actor(c))
	return p, err
}

// add saves a new endpoint and shows the Webhooks page with its secret,
// once; a refused URL or type is shown next to the form as typed.
func (h endpointDesk) add(c *fiber.Ctx) error {
	url, desc := form(c, "url"), form(c, "description")
	ep, err := h.p.svc.Endpoints.Add(c.UserContext(), h.ui.Actor(c), url, typesForm(c), desc)
	v := h.ui.View(c, "desk_webhooks_title")
	v.Path = h.ui.Config().Base + "/webhooks"
	if err != nil {
		msg, ok := fieldProblem(err)
		if !ok {
			return h.ui.Fail(c, err)
		}
		v.Status = fiber.StatusBadRequest
		return h.webhooksPageWith(c, v, func(p *endpointsPanel) {
			p.URL, p.Description, p.Problem = strings.ToValidUTF8(url, "\uFFFD"), strings.ToValidUTF8(desc, "\uFFFD"), msg
		})
	}
	return h.webhooksPageWith(c, v, func(p *endpointsPanel) { p.Added = &ep })
}

// webhooksPageWith is the Webhooks page with its endpoints panel changed
// by edit.
func (h endpointDesk) webhooksPageWith(c *fiber.Ctx, v *frame.View, edit func(*endpointsPanel)) error {
	return h.webhooksPageOf(c, v, defaultFilter(), edit)
}

// typesForm is the types checked ("" when none: every type).
func typesForm(c *fiber.Ctx) string {
	var ts []string
	for _, raw := range c.Request().PostArgs().PeekMulti("types") {
		ts = append(ts, strings.TrimSpace(string(raw))) // string() copies
	}
	return strings.Join(ts, ",")
}

// endpointData is one endpoint's page.
type endpointData struct {
	Endpoint   events.Endpoint
	Catalogue  []events.Info
	Deliveries []events.Delivery
	// Engine is whether deliveries are served here: without it the page
	// shows the endpoint and says its deliveries are not available.
	Engine bool
	// NeedsTOTP: the role may change the endpoint or rotate its secret,
	// the person has no TOTP: those forms give way to how to set it up.
	NeedsTOTP bool
	Next      int64 // the next page's cursor, 0 on the last
	// NewSecret is a rotation's new secret, shown this once.
	NewSecret string
	Since     string // the replay form's default, in the viewer's zone
	Zone      string // the viewer's zone's offset, for the replay form's label
	Problem   string // a refused change, shown next to its form
}

// deliveriesPage is how many deliveries the page lists.
const deliveriesPage = 25

func (h endpointDesk) show(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_endpoint_title")
	v.Flash = notice(v, c)
	var before int64
	if ms, err := parseMS(query(c, "before")); err == nil {
		before = ms.UnixMilli()
	}
	return h.endpointPage(c, v, before, func(*endpointData) {})
}

func (h endpointDesk) endpointPage(c *fiber.Ctx, v *frame.View, before int64, edit func(*endpointData)) error {
	id := strings.Clone(c.Params("id"))
	ep, err := h.p.svc.Endpoints.Get(c.UserContext(), h.ui.Actor(c), id)
	if err != nil {
		return h.ui.Fail(c, err)
	}
	d := endpointData{Endpoint: ep, Catalogue: events.Catalogue, Zone: frame.Offset(h.p.now().In(zoneOr(v.Zone))),
		Since: h.p.now().In(zoneOr(v.Zone)).Add(-24 * time.Hour).Format(dateInput)}
	if d.NeedsTOTP, err = h.p.svc.Endpoints.NeedsTOTP(c.UserContext(), h.ui.Actor(c)); err != nil {
		return h.ui.Fail(c, err)
	}
	if _, d.Engine = h.p.svc.Endpoints.Served(); d.Engine {
		if d.Deliveries, d.Next, err = h.p.svc.Endpoints.Deliveries(c.UserContext(), h.ui.Actor(c), id, before, deliveriesPage); err != nil {
			return h.ui.Fail(c, err)
		}
	}
	edit(&d)
	v.Data, v.Path = d, h.ui.Config().Base+"/webhooks/endpoints/"+id
	return h.ui.Render(c, "desk_endpoint", v)
}

func zoneOr(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// typesField is the event types' checkboxes of a form: the page's view,
// the catalogue and what is checked.
type typesField struct {
	V         *frame.View
	Catalogue []events.Info
	Chosen    []events.Type
}

func deskTypes(v *frame.View, cat []events.Info, chosen []events.Type) typesField {
	return typesField{V: v, Catalogue: cat, Chosen: chosen}
}

// deskLast is a delivery's last attempt, nil before the first.
func deskLast(as []events.Attempt) *events.Attempt {
	if len(as) == 0 {
		return nil
	}
	return &as[len(as)-1]
}

// deskEventAbout is the message id of when type t is sent.
func deskEventAbout(t events.Type) string {
	return "desk_event_about_" + strings.NewReplacer(".", "_").Replace(string(t))
}
