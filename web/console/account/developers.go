package account

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/selfservice"
	"github.com/paygate/gateway/web/frame"
)

// developersData is the Developers page.
type developersData struct {
	Creds *selfservice.Credentials
	// Shown once, in the answer to the rotation that made it.
	NewSecret     string
	NewSecretKind string // message id of what it is
	OldUntil      time.Time
	Test          *dispatcher.TestResult
	GraceHours    int
	MaxGraceHours int
	// Callback is the callback form as typed when it was refused, with
	// CallbackErr, the refusal, shown next to the field.
	Callback, CallbackErr string
	// Catalogue is every event type an endpoint may take, with what it
	// carries and when it is sent.
	Catalogue        []events.Info
	CatalogueVersion string
	// SDKs are the official libraries whose READMEs the console shows.
	SDKs []sdkDoc
}

// developers shows the credentials (their ends only) and the forms the
// role may use.
func (h handlers) developers(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_developers_title")
	v.Flash = notice(v, c)
	return h.developersPage(c, v, developersData{})
}

func (h handlers) developersPage(c *fiber.Ctx, v *frame.View, d developersData) error {
	creds, err := h.p.svc.Keys.Credentials(c.UserContext(), h.ui.Actor(c))
	if err != nil {
		return h.ui.Fail(c, err)
	}
	d.Creds, d.GraceHours, d.MaxGraceHours = creds, int(creds.DefaultGrace.Hours()), int(creds.MaxGrace.Hours())
	d.Catalogue, d.CatalogueVersion, d.SDKs = events.Catalogue, events.Version, shownSDKs()
	v.Data, v.Path = d, h.ui.Config().Base+"/developers"
	return h.ui.Render(c, "desk_developers", v)
}

// rotate issues a new API key, query key or webhook secret and shows it
// once.
func (h handlers) rotate(c *fiber.Ctx) error {
	grace := time.Duration(-1)
	if g := form(c, "grace"); g != "" {
		hours, err := parseHours(g)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		grace = hours
	}
	var (
		r    *selfservice.Rotated
		err  error
		kind string
	)
	switch strings.Clone(c.Params("what")) {
	case "api-key":
		r, err = h.p.svc.Keys.RotateAPIKey(c.UserContext(), h.ui.Actor(c), grace)
		kind = "desk_api_key"
	case "query-key":
		r, err = h.p.svc.Keys.RotateQueryKey(c.UserContext(), h.ui.Actor(c), grace)
		kind = "desk_query_key"
	case "webhook-secret":
		r, err = h.p.svc.Keys.RotateWebhookSecret(c.UserContext(), h.ui.Actor(c), grace)
		kind = "desk_webhook_secret"
	default:
		return h.ui.Fail(c, fiber.ErrNotFound)
	}
	if err != nil {
		return h.ui.Fail(c, err)
	}
	v := h.ui.View(c, "desk_developers_title")
	return h.developersPage(c, v, developersData{NewSecret: r.Secret, NewSecretKind: kind, OldUntil: r.OldUntil})
}

// confirmWebhookKey is the merchant saying its webhook receiver has the
// new API key: webhooks are MD5-signed with it from now on.
func (h handlers) confirmWebhookKey(c *fiber.Ctx) error {
	if err := h.p.svc.Keys.ConfirmWebhookKey(c.UserContext(), h.ui.Actor(c)); err != nil {
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/developers", "webhook_key")
}

// parseHours reads a grace period in whole hours.
func parseHours(s string) (time.Duration, error) {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' || n > 10000 {
			return 0, platform.Errorf(platform.KindInvalidParameter, "the grace period is a number of hours")
		}
		n = n*10 + int(r-'0')
	}
	return time.Duration(n) * time.Hour, nil
}

// callback sets the default callback URL.
func (h handlers) callback(c *fiber.Ctx) error {
	raw := form(c, "callback")
	if err := h.p.svc.Webhooks.SetCallback(c.UserContext(), h.ui.Actor(c), raw); err != nil {
		if msg, ok := fieldProblem(err); ok {
			v := h.ui.View(c, "desk_developers_title")
			v.Status = fiber.StatusBadRequest
			return h.developersPage(c, v, developersData{Callback: strings.ToValidUTF8(raw, "\uFFFD"), CallbackErr: msg})
		}
		return h.ui.Fail(c, err)
	}
	return h.done(c, "/developers", "callback")
}

// fieldProblem is the message of a refusal of one field's value (an
// invalid parameter), shown next to that field; anything else is a page of
// its own (ui.Fail).
func fieldProblem(err error) (string, bool) {
	var de *platform.Error
	if errors.As(err, &de) && de.Kind == platform.KindInvalidParameter {
		return de.Msg, true
	}
	return "", false
}

// testEvent sends a signed test event and shows the answer.
func (h handlers) testEvent(c *fiber.Ctx) error {
	res, err := h.p.svc.Webhooks.SendTestEvent(c.UserContext(), h.ui.Actor(c))
	if err != nil {
		return h.ui.Fail(c, err)
	}
	v := h.ui.View(c, "desk_developers_title")
	return h.developersPage(c, v, developersData{Test: res})
}

// signatureData is the debugger's page.
type signatureData struct {
	Endpoint  string
	Endpoints []string
	Params    string
	Result    *selfservice.SignDebug
	BadJSON   bool // the parameters looked like a JSON body and were not one
}

// debugger is the sandbox signature debugger: parameters in, the JSON body
// the merchant posts or one name=value a line, the signed string and the
// sign out.
func (h handlers) debugger(c *fiber.Ctx) error {
	v := h.ui.View(c, "desk_signature_title")
	d := signatureData{Endpoint: "createorder", Endpoints: []string{"createorder", "cancel", "refund", "resend", "other"}}
	if c.Method() == fiber.MethodPost {
		d.Endpoint, d.Params = form(c, "endpoint"), strings.Clone(c.FormValue("params"))
		p, err := parseParams(d.Params)
		if err != nil {
			d.BadJSON = true
			v.Data, v.Path = d, h.ui.Config().Base+"/developers/signature"
			return h.ui.Render(c, "desk_signature", v)
		}
		res, err := h.p.svc.Keys.DebugSignature(c.UserContext(), h.ui.Actor(c), d.Endpoint, p)
		if err != nil {
			return h.ui.Fail(c, err)
		}
		d.Result = res
	}
	v.Data, v.Path = d, h.ui.Config().Base+"/developers/signature"
	return h.ui.Render(c, "desk_signature", v)
}

// parseParams reads what the merchant pasted: a JSON object (what a
// server-side create posts) is read by the API's own parser, so a number is
// signed as sent and null is absent exactly as the endpoint would; anything
// else is name=value lines.
func parseParams(s string) (schema.Params, error) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		p, err := command.ParseJSONParams([]byte(t))
		if err != nil {
			return nil, fmt.Errorf("read the JSON body: %w", err)
		}
		return p, nil
	}
	return parseLines(s), nil
}

// parseLines reads name=value lines; blank lines are skipped, values keep
// their spaces (they are signed as given), a line's ending is dropped.
func parseLines(s string) schema.Params {
	p := schema.Params{}
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		name, value, ok := strings.Cut(line, "=")
		if name = strings.TrimSpace(name); ok && name != "" {
			p[name] = value
		}
	}
	return p
}
