package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Channels are the provider accounts' routing data as the console and the
// CLI read and change them: whoever reads settings may look, only
// channels.write may change, and every change is written with its audit
// entry in one step (channel.Store), so a breaker closed by hand, a cap
// raised or a keyword added is always traceable to a person.
type Channels struct {
	st        *channel.Store
	rdb       redis.Cmdable
	conf      channel.Configured
	merchants *merchant.Store
	now       func() time.Time
}

// NewChannels reads and writes rdb. conf lists the channels this process
// has credentials for (nil: none known here, every stored one is listed as
// not configured).
func NewChannels(rdb redis.Cmdable, conf channel.Configured, merchants *merchant.Store) *Channels {
	return &Channels{st: channel.NewStore(rdb), rdb: rdb, conf: conf, merchants: merchants, now: time.Now}
}

// WithClock makes now the use case's time (tests, the gateway's offset).
func (c *Channels) WithClock(now func() time.Time) *Channels {
	cp := *c
	cp.now = now
	return &cp
}

// snapshot reads the routing data now: an operator's page shows what is
// stored, not a copy up to a second old.
func (c *Channels) snapshot(ctx context.Context) (*channel.Snapshot, error) {
	d := channel.NewDirectory(c.rdb, 0, nil)
	if err := d.Load(ctx); err != nil {
		return nil, err
	}
	return d.Now(), nil
}

// Edit changes ref's stored settings with fn (fn sees the current ones,
// Defaults when none are stored): a flag not given keeps its value.
func (c *Channels) Edit(ctx context.Context, actor access.Actor, ref channel.Ref, action string, fn func(*channel.Settings) error) (channel.Settings, error) {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return channel.Settings{}, err
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return channel.Settings{}, err
	}
	s := snap.SettingsOf(ref)
	s.Merchants = slices.Clone(s.Merchants)
	if err := fn(&s); err != nil {
		return channel.Settings{}, platform.Errorf(platform.KindInvalidParameter, "channel %s: %s", ref, err.Error())
	}
	if err := s.Validate(); err != nil {
		return channel.Settings{}, platform.Errorf(platform.KindInvalidParameter, "channel %s: %s", ref, err.Error())
	}
	e, err := checked(entry(c.now(), actor, action, "channel:"+ref.String(), "",
		map[string]string{"channel": ref.String(), "settings": DescribeSettings(s)}))
	if err != nil {
		return channel.Settings{}, err
	}
	return s, c.st.Set(ctx, ref, s, e)
}

// SetMode sets how the channels of a method (of a mode) are ranked.
func (c *Channels) SetMode(ctx context.Context, actor access.Actor, sandbox bool, m schema.Method, mode channel.Mode) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	e, err := checked(entry(c.now(), actor, "channel.mode", "method:"+methodName(sandbox, m), "",
		map[string]string{"method": methodName(sandbox, m), "mode": string(mode)}))
	if err != nil {
		return err
	}
	return c.st.SetMode(ctx, sandbox, m, mode, e)
}

// SetPin gives merchant appid its own channel set for a method; no ids
// removes it.
func (c *Channels) SetPin(ctx context.Context, actor access.Actor, appid string, sandbox bool, m schema.Method, ids []string) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	if _, err := c.merchants.Get(ctx, appid); errors.Is(err, merchant.ErrNotFound) {
		return platform.Errorf(platform.KindNotFound, "no merchant %q", appid)
	} else if err != nil {
		return err
	}
	e, err := checked(entry(c.now(), actor, "channel.pin", "merchant:"+appid, appid,
		map[string]string{"method": methodName(sandbox, m), "channel": strings.Join(ids, ",")}))
	if err != nil {
		return err
	}
	return c.st.SetPin(ctx, appid, sandbox, m, ids, e)
}

// SetKeywords replaces the keyword list (none: cleared).
func (c *Channels) SetKeywords(ctx context.Context, actor access.Actor, kw []string) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	for i, w := range kw {
		clean, err := audit.Text("keyword", w, channel.MaxKeyword)
		if err != nil {
			return err
		}
		kw[i] = clean
	}
	e, err := checked(entry(c.now(), actor, "channel.keywords", "channels", "",
		map[string]string{"words": audit.Clip(strings.Join(kw, " | "), 1024), "count": fmt.Sprint(len(kw))}))
	if err != nil {
		return err
	}
	return c.st.SetKeywords(ctx, kw, e)
}

// SetBreaker opens (until closed by hand) or closes ref's breaker, with
// the person's reason.
func (c *Channels) SetBreaker(ctx context.Context, actor access.Actor, ref channel.Ref, state channel.BreakerState, reason string) error {
	if err := allow(actor, access.PermChannelsWrite); err != nil {
		return err
	}
	reason, err := audit.Text("reason", reason, audit.MaxText)
	if err != nil {
		return err
	}
	if reason == "" {
		return invalid("a breaker opened or closed by hand needs a reason")
	}
	now := c.now()
	return c.st.SetBreakerByHand(ctx, ref, state, reason, By(actor), now, entry(now, actor, "", "", "", nil))
}

// SetGroup puts merchant appid in a group ("" takes it out): the channels
// serving that group serve it.
func (c *Channels) SetGroup(ctx context.Context, actor access.Actor, appid, group string) error {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return err
	}
	e, err := checked(entry(c.now(), actor, "merchant.group", "merchant:"+appid, appid, map[string]string{"group": group}))
	if err != nil {
		return err
	}
	if _, err := c.merchants.Audited(e).SetGroup(ctx, appid, group); err != nil {
		return err
	}
	return nil
}

// methodName is a method of a mode as refs spell it: "sandbox.wallet_a".
func methodName(sandbox bool, m schema.Method) string {
	if sandbox {
		return "sandbox." + string(m)
	}
	return string(m)
}

// ParseMethod reads "[sandbox.]<method>".
func ParseMethod(v string) (bool, schema.Method, error) {
	rest, sandbox := strings.CutPrefix(v, "sandbox.")
	m := schema.Method(rest)
	if !m.Known() {
		return false, "", platform.Errorf(platform.KindInvalidParameter, "method %q: want [sandbox.]<method>", v)
	}
	return sandbox, m, nil
}

// DescribeSettings is s in one line, as the audit entry and the CLI show it.
func DescribeSettings(s channel.Settings) string {
	var b strings.Builder
	state := "enabled"
	if s.Disabled {
		state = "disabled"
	}
	fmt.Fprintf(&b, "%s", state)
	if s.Maintenance {
		b.WriteString(", maintenance")
	}
	fmt.Fprintf(&b, ", weight %d, priority %d", max(s.Weight, 1), s.Priority)
	if s.MinAmount > 0 || s.MaxAmount > 0 {
		fmt.Fprintf(&b, ", per order %s-%s", s.MinAmount, amountOrNone(s.MaxAmount))
	}
	if s.DailyAmount > 0 {
		fmt.Fprintf(&b, ", daily amount %s", s.DailyAmount)
	}
	if s.DailyCount > 0 {
		fmt.Fprintf(&b, ", daily count %d", s.DailyCount)
	}
	if s.TimeZone != "" {
		fmt.Fprintf(&b, ", tz %s", s.TimeZone)
	}
	if s.Active != "" {
		fmt.Fprintf(&b, ", active %s", s.Active)
	}
	switch {
	case s.Group != "":
		fmt.Fprintf(&b, ", group %s", s.Group)
	case len(s.Merchants) > 0:
		fmt.Fprintf(&b, ", merchants %d", len(s.Merchants))
	}
	if !s.Cost.Zero() {
		fmt.Fprintf(&b, ", cost %s", DescribeCost(s.Cost))
	}
	return b.String()
}

// DescribeCost is a channel's cost as people read it: "1.20% + 0.30".
func DescribeCost(f schema.FeeSchedule) string {
	if f.Zero() {
		return "none"
	}
	return fmt.Sprintf("%d.%02d%% + %s", f.Bps/100, f.Bps%100, f.Fixed)
}

func amountOrNone(a schema.Amount) string {
	if a == 0 {
		return "none"
	}
	return a.String()
}

// ParseOptionalAmount is an amount as typed, "0" (or "") for none.
func ParseOptionalAmount(v string) (schema.Amount, error) {
	if v == "" || v == "0" {
		return 0, nil
	}
	return schema.ParseAmount(v)
}

// ParseCost reads a channel's cost as typed, BPS:FIXED ("120:0.30",
// "120", "0" or "" for none).
func ParseCost(v string) (schema.FeeSchedule, error) {
	if v == "" || v == "0" || v == "none" {
		return schema.FeeSchedule{}, nil
	}
	bpsText, fixedText, _ := strings.Cut(v, ":")
	bps, err := strconv.ParseInt(bpsText, 10, 64)
	if err != nil || bps < 0 {
		return schema.FeeSchedule{}, fmt.Errorf("%q: want BPS:FIXED, e.g. 120:0.30", v)
	}
	fixed, err := ParseOptionalAmount(fixedText)
	if err != nil {
		return schema.FeeSchedule{}, fmt.Errorf("%q: fixed part %w", v, err)
	}
	f := schema.FeeSchedule{Bps: bps, Fixed: fixed}
	return f, f.Validate()
}
