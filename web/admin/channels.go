package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// channelsData is the Channels page: each method's channels by mode, the
// keyword list and the merchants' pins. Every text an operator typed (a
// breaker's reason, a keyword) reaches the page through html/template's
// escaping; channel ids cannot hold markup (channel.ValidID).
type channelsData struct {
	Methods  []methodBlock
	Keywords []string
	Words    string // the keyword list, one a line, for the form
	Pins     []operator.Pin
	Names    []string // every method of both modes, for the pin form
	Modes    []string
}

type methodBlock struct {
	Name     string
	Mode     string
	Channels []channelCard
}

// channelCard is one channel as the page shows and edits it.
type channelCard struct {
	Ref, State, Reason, By                 string
	Since                                  time.Time
	Configured, Enabled, Maintenance       bool
	Weight, Priority                       int
	Min, Max, DailyAmount, TZ, Active      string
	DailyCount                             int64
	Serve, Merchants, Group, Cost, CostArg string
	Day, UsedAmount, PaidAmount, Rate      string
	UsedCount, PaidCount                   int64
}

func newChannelCard(cv operator.ChannelView) channelCard {
	s, b := cv.Settings, cv.Breaker
	c := channelCard{Ref: cv.Ref.String(), State: string(b.State), Reason: b.Reason, By: b.By, Since: b.Since,
		Configured: cv.Configured, Enabled: !s.Disabled, Maintenance: s.Maintenance, Weight: max(s.Weight, 1), Priority: s.Priority,
		Min: zeroBlank(s.MinAmount.String(), s.MinAmount == 0), Max: zeroBlank(s.MaxAmount.String(), s.MaxAmount == 0),
		DailyAmount: zeroBlank(s.DailyAmount.String(), s.DailyAmount == 0), DailyCount: s.DailyCount, TZ: s.TimeZone, Active: s.Active,
		Serve: "all", Merchants: strings.Join(s.Merchants, ","), Group: s.Group, Cost: operator.DescribeCost(s.Cost),
		Day: dayText(cv.Day), UsedCount: cv.Used.Count, UsedAmount: cv.Used.Amount.String(), PaidCount: cv.PaidCount, PaidAmount: cv.PaidAmount.String(), Rate: "—"}
	if c.State == "" {
		c.State = string(channel.Closed)
	}
	switch {
	case s.Group != "":
		c.Serve = "group"
	case len(s.Merchants) > 0:
		c.Serve = "merchants"
	}
	if !s.Cost.Zero() {
		c.CostArg = fmt.Sprintf("%d:%s", s.Cost.Bps, s.Cost.Fixed)
	}
	if r := cv.Attempts.Rate(); r >= 0 {
		c.Rate = fmt.Sprintf("%d%% / %d", r, cv.Attempts.OK+cv.Attempts.Fail)
	}
	return c
}

// dayText is a caps day key (yyyymmdd in the channel's zone) as a date a
// reader takes for one, not for a cap.
func dayText(day string) string {
	if len(day) != 8 {
		return day
	}
	return day[:4] + "-" + day[4:6] + "-" + day[6:]
}

func zeroBlank(v string, zero bool) string {
	if zero {
		return ""
	}
	return v
}

// channelDesk is the Channels page and its forms: a page family of its
// own, drawing with the console's frame and deps.
type channelDesk struct{ *Console }

// channelsPage shows every channel; the forms are offered to who may use
// them (channels.write), and the use case checks the role again.
func (c channelDesk) channelsPage(ctx *fiber.Ctx) error {
	v, err := c.d.Channels.List(ctx.UserContext(), c.ui.Actor(ctx))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d := channelsData{Keywords: v.Keywords, Words: strings.Join(v.Keywords, "\n"), Pins: v.Pins,
		Modes: []string{string(channel.ModePriority), string(channel.ModeWeighted), string(channel.ModeRoundRobin)}}
	for _, m := range v.Methods {
		b := methodBlock{Name: m.Name, Mode: string(m.Mode)}
		for _, cv := range m.Channels {
			b.Channels = append(b.Channels, newChannelCard(cv))
		}
		d.Methods = append(d.Methods, b)
		d.Names = append(d.Names, m.Name)
	}
	return c.page(ctx, "channels", "title_channels", d)
}

// postedRef is the form's channel.
func postedRef(ctx *fiber.Ctx) (channel.Ref, error) {
	r, err := channel.ParseRef(form(ctx, "ref"))
	if err != nil {
		return channel.Ref{}, platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	return r, nil
}

// postedSettings is the edit form: every field is posted, so each replaces
// the stored value (enabled and maintenance have their own buttons).
func postedSettings(ctx *fiber.Ctx) (func(*channel.Settings) error, error) {
	var errs []string
	num := func(name string) int64 {
		v := form(ctx, name)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, name+": a whole number")
		}
		return n
	}
	amount := func(name string) int64 {
		a, err := operator.ParseOptionalAmount(form(ctx, name))
		if err != nil {
			errs = append(errs, name+": "+err.Error())
		}
		return int64(a)
	}
	weight, priority, count := num("weight"), num("priority"), num("daily_count")
	lo, hi, daily := amount("min"), amount("max"), amount("daily_amount")
	cost, err := operator.ParseCost(form(ctx, "cost"))
	if err != nil {
		errs = append(errs, "cost: "+err.Error())
	}
	tz, active, serve := form(ctx, "tz"), form(ctx, "active"), form(ctx, "serve")
	merchants, group := splitList(form(ctx, "merchants")), form(ctx, "group")
	if len(errs) > 0 {
		return nil, platform.Errorf(platform.KindInvalidParameter, "%s", strings.Join(errs, "; "))
	}
	return func(s *channel.Settings) error {
		s.Weight, s.Priority, s.DailyCount = int(weight), int(priority), count
		s.MinAmount, s.MaxAmount, s.DailyAmount = schema.Amount(lo), schema.Amount(hi), schema.Amount(daily)
		s.Cost, s.TimeZone, s.Active = cost, tz, active
		s.Merchants, s.Group = nil, ""
		switch serve {
		case "merchants":
			s.Merchants = merchants
		case "group":
			s.Group = group
		}
		return nil
	}, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		out = append(out, s)
	}
	return out
}

func (c channelDesk) setChannel(ctx *fiber.Ctx) error {
	ref, err := postedRef(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	edit, err := postedSettings(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	_, err = c.d.Channels.Edit(ctx.UserContext(), c.ui.Actor(ctx), ref, "channel.set", edit)
	return c.after(ctx, err, "/channels", "channel")
}

// channelState is enable, disable and maintenance on or off.
func (c channelDesk) channelState(ctx *fiber.Ctx) error {
	ref, err := postedRef(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	var action string
	var fn func(*channel.Settings) error
	switch form(ctx, "to") {
	case "enable", "disable":
		off := form(ctx, "to") == "disable"
		action, fn = "channel."+form(ctx, "to"), func(s *channel.Settings) error { s.Disabled = off; return nil }
	case "maintenance_on", "maintenance_off":
		on := form(ctx, "to") == "maintenance_on"
		action, fn = "channel.maintenance", func(s *channel.Settings) error { s.Maintenance = on; return nil }
	default:
		return c.ui.Fail(ctx, platform.Errorf(platform.KindInvalidParameter, "to: enable, disable, maintenance_on or maintenance_off"))
	}
	_, err = c.d.Channels.Edit(ctx.UserContext(), c.ui.Actor(ctx), ref, action, fn)
	return c.after(ctx, err, "/channels", "channel")
}

func (c channelDesk) channelBreaker(ctx *fiber.Ctx) error {
	ref, err := postedRef(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	reason, err := text(ctx, "reason", audit.MaxText)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	state := map[string]channel.BreakerState{"open": channel.Open, "close": channel.Closed}[form(ctx, "to")]
	err = c.d.Channels.SetBreaker(ctx.UserContext(), c.ui.Actor(ctx), ref, state, reason)
	return c.after(ctx, err, "/channels", "channel")
}

func (c channelDesk) channelMode(ctx *fiber.Ctx) error {
	sandbox, m, err := operator.ParseMethod(form(ctx, "method"))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	err = c.d.Channels.SetMode(ctx.UserContext(), c.ui.Actor(ctx), sandbox, m, channel.Mode(form(ctx, "mode")))
	return c.after(ctx, err, "/channels", "channel")
}

func (c channelDesk) channelKeywords(ctx *fiber.Ctx) error {
	var kw []string
	for _, line := range strings.Split(strings.Clone(ctx.FormValue("words")), "\n") {
		w, err := audit.Text("words", line, channel.MaxKeyword)
		if err != nil {
			return c.ui.Fail(ctx, err)
		}
		if w != "" {
			kw = append(kw, w)
		}
	}
	err := c.d.Channels.SetKeywords(ctx.UserContext(), c.ui.Actor(ctx), kw)
	return c.after(ctx, err, "/channels", "channel")
}

func (c channelDesk) channelPin(ctx *fiber.Ctx) error {
	sandbox, m, err := operator.ParseMethod(form(ctx, "method"))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	err = c.d.Channels.SetPin(ctx.UserContext(), c.ui.Actor(ctx), form(ctx, "merchant"), sandbox, m, splitList(form(ctx, "ids")))
	return c.after(ctx, err, "/channels", "channel")
}

// orderChannel is the channel an order went to, as the order page shows
// it ("" for a method the gateway serves itself).
func orderChannel(o *schema.Order) string {
	if o == nil || !operator.Routed(o.Method) {
		return ""
	}
	return channel.OfOrder(o).String()
}
