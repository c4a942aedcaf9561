package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ChannelView is one channel as an operator reads it: its routing data,
// its breaker and why, today's use of its caps (its zone's day), what it
// was paid today (the ledger's per-channel counters, when written) and
// its success rate over the last channel.StatsMinutes (every process's).
type ChannelView struct {
	Ref        channel.Ref
	Configured bool // credentials in this process's providers
	Stored     bool // routing data set (else the defaults)
	Settings   channel.Settings
	Breaker    channel.Breaker
	Day        string
	Used       channel.Usage
	PaidCount  int64
	PaidAmount schema.Amount
	Attempts   channel.Attempts
}

// MethodChannels are one method's channels in one mode, with its ranking.
type MethodChannels struct {
	Sandbox  bool
	Method   schema.Method
	Name     string // "[sandbox.]<method>"
	Mode     channel.Mode
	Channels []ChannelView
}

// Pin is a merchant's own channel set for a method.
type Pin struct {
	AppID  string
	Method string // "[sandbox.]<method>"
	IDs    []string
}

// ChannelsView is the whole picture the console page and `gateway channel
// list` show.
type ChannelsView struct {
	Methods  []MethodChannels
	Keywords []string
	Pins     []Pin
}

// Routed reports whether m goes through provider channels (select,
// usdt_direct and balance are the gateway's own).
func Routed(m schema.Method) bool {
	return m.Selectable() && m != schema.MethodUSDTDirect && m != schema.MethodBalance
}

// List reads every channel: the configured ones and any with stored data.
func (c *Channels) List(ctx context.Context, actor access.Actor) (*ChannelsView, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, err
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	v := &ChannelsView{Keywords: slices.Clone(snap.Keywords)}
	for _, m := range schema.AllMethods() {
		if !Routed(m) {
			continue
		}
		for _, sandbox := range []bool{false, true} {
			mc := MethodChannels{Sandbox: sandbox, Method: m, Name: methodName(sandbox, m), Mode: snap.ModeOf(sandbox, m)}
			for _, ref := range c.refs(snap, sandbox, m) {
				cv, err := c.view(ctx, snap, ref)
				if err != nil {
					return nil, err
				}
				mc.Channels = append(mc.Channels, cv)
			}
			if len(mc.Channels) > 0 {
				v.Methods = append(v.Methods, mc)
			}
		}
	}
	for k, ids := range snap.Pins {
		appid, method, _ := strings.Cut(k, ":")
		v.Pins = append(v.Pins, Pin{AppID: appid, Method: method, IDs: slices.Clone(ids)})
	}
	slices.SortFunc(v.Pins, func(a, b Pin) int { return strings.Compare(a.AppID+":"+a.Method, b.AppID+":"+b.Method) })
	return v, nil
}

// Show reads one channel.
func (c *Channels) Show(ctx context.Context, actor access.Actor, ref channel.Ref) (ChannelView, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return ChannelView{}, err
	}
	snap, err := c.snapshot(ctx)
	if err != nil {
		return ChannelView{}, err
	}
	cv, err := c.view(ctx, snap, ref)
	if err != nil {
		return ChannelView{}, err
	}
	if !cv.Configured && !cv.Stored {
		return ChannelView{}, platform.Errorf(platform.KindNotFound, "channel %s is neither configured here nor has routing data", ref)
	}
	return cv, nil
}

// refs are m's channels in a mode: configured ones, then stored ones not
// configured here, each in id order.
func (c *Channels) refs(snap *channel.Snapshot, sandbox bool, m schema.Method) []channel.Ref {
	var ids []string
	if c.conf != nil {
		ids = append(ids, c.conf.Channels(m, sandbox)...)
	}
	for r := range snap.Settings {
		if r.Sandbox == sandbox && r.Method == m {
			ids = append(ids, r.ID)
		}
	}
	for r := range snap.Breakers {
		if r.Sandbox == sandbox && r.Method == m {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]channel.Ref, len(ids))
	for i, id := range ids {
		out[i] = channel.Ref{Sandbox: sandbox, Method: m, ID: id}
	}
	return out
}

func (c *Channels) configured(r channel.Ref) bool {
	return c.conf != nil && slices.Contains(c.conf.Channels(r.Method, r.Sandbox), r.ID)
}

func (c *Channels) view(ctx context.Context, snap *channel.Snapshot, r channel.Ref) (ChannelView, error) {
	_, stored := snap.Settings[r]
	_, hasBreaker := snap.Breakers[r]
	now := c.now()
	cv := ChannelView{Ref: r, Configured: c.configured(r), Stored: stored || hasBreaker, Settings: snap.SettingsOf(r), Breaker: snap.BreakerOf(r)}
	cv.Day = cv.Settings.Day(now)
	var err error
	if cv.Used, err = channel.NewCaps(c.rdb).Used(ctx, r, cv.Day); err != nil {
		return ChannelView{}, err
	}
	if cv.Attempts, err = channel.ReadAttempts(ctx, c.rdb, r, now, channel.StatsMinutes); err != nil {
		return ChannelView{}, err
	}
	if cv.PaidCount, cv.PaidAmount, err = c.paid(ctx, r, cv.Day); err != nil {
		return ChannelView{}, err
	}
	return cv, nil
}

// paidKey is the ledger's per-channel daily paid counters (count n, amount
// amt in the charge's minor units); absent until a payment is posted.
func paidKey(ref, day string) string { return "gw:{ch:" + ref + "}:paid:" + day }

func (c *Channels) paid(ctx context.Context, r channel.Ref, day string) (int64, schema.Amount, error) {
	h, err := c.rdb.HGetAll(ctx, paidKey(r.String(), day)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, fmt.Errorf("read paid counters of %s: %w", r, err)
	}
	n, _ := strconv.ParseInt(h["n"], 10, 64)
	a, _ := strconv.ParseInt(h["amt"], 10, 64)
	return n, schema.Amount(a), nil
}
