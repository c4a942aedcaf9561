package provider

import (
	"fmt"
	"slices"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/schema"
)

// Channel is one provider account of a method: its id and the adapter
// holding its credentials.
type Channel struct {
	ID      string
	Adapter Adapter
}

// Registry picks the adapter for an order's method and channel: the
// sandbox's adapters (real adapters pointed at the simulators) for a
// sandbox merchant, the live ones for a live merchant. A method without an
// adapter is unavailable.
type Registry struct {
	sandbox map[schema.Method][]Channel
	live    map[schema.Method][]Channel
}

// NewRegistry builds a registry of one channel (channel.Default) per
// method; either map may be empty.
func NewRegistry(sandbox, live map[schema.Method]Adapter) *Registry {
	one := func(in map[schema.Method]Adapter) map[schema.Method][]Channel {
		out := map[schema.Method][]Channel{}
		for m, a := range in {
			out[m] = []Channel{{ID: channel.Default, Adapter: a}}
		}
		return out
	}
	return &Registry{sandbox: one(sandbox), live: one(live)}
}

// NewChannelRegistry builds a registry of several channels per method. A
// malformed id, or two channels of one id for a method, is refused.
func NewChannelRegistry(sandbox, live map[schema.Method][]Channel) (*Registry, error) {
	for mode, set := range map[string]map[schema.Method][]Channel{"sandbox": sandbox, "live": live} {
		for m, chs := range set {
			seen := map[string]bool{}
			for _, c := range chs {
				if err := channel.CheckID(c.ID); err != nil {
					return nil, fmt.Errorf("%s %s: %w", mode, m, err)
				}
				if seen[c.ID] {
					return nil, fmt.Errorf("%s %s: two channels with id %q", mode, m, c.ID)
				}
				seen[c.ID] = true
			}
		}
	}
	return &Registry{sandbox: sandbox, live: live}, nil
}

func (r *Registry) set(sandbox bool) map[schema.Method][]Channel {
	if sandbox {
		return r.sandbox
	}
	return r.live
}

// For returns the adapter of method's default channel (the first one when
// none is called default), or false when none serves it. It is for what
// has no channel to go by: a family's plain notification path with one
// channel, a method's listing of payment systems.
func (r *Registry) For(m schema.Method, sandbox bool) (Adapter, bool) {
	chs := r.set(sandbox)[m]
	if len(chs) == 0 {
		return nil, false
	}
	if a, ok := r.ForChannel(m, sandbox, channel.Default); ok {
		return a, true
	}
	return chs[0].Adapter, true
}

// ForChannel returns channel id's adapter of method ("" is
// channel.Default), or false when the process has no such channel.
func (r *Registry) ForChannel(m schema.Method, sandbox bool, id string) (Adapter, bool) {
	if id == "" {
		id = channel.Default
	}
	for _, c := range r.set(sandbox)[m] {
		if c.ID == id {
			return c.Adapter, true
		}
	}
	return nil, false
}

// Channels lists method's channel ids, in configuration order
// (channel.Configured).
func (r *Registry) Channels(m schema.Method, sandbox bool) []string {
	chs := r.set(sandbox)[m]
	out := make([]string, len(chs))
	for i, c := range chs {
		out[i] = c.ID
	}
	return out
}

// All is method's channels with their adapters.
func (r *Registry) All(m schema.Method, sandbox bool) []Channel {
	return slices.Clone(r.set(sandbox)[m])
}

// Methods lists the methods served for a merchant kind.
func (r *Registry) Methods(sandbox bool) []schema.Method {
	src := r.set(sandbox)
	var out []schema.Method
	for _, m := range schema.AllMethods() {
		if len(src[m]) > 0 {
			out = append(out, m)
		}
	}
	return out
}
