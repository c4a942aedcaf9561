package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// channelBuild is one live channel as read from the configuration: its id
// and how its adapter is made.
type channelBuild struct {
	id    string
	build provider.Build
}

// channelConfigs splits a method's configuration into its channels: one
// JSON object is channel.Default (the form from before channels); a JSON
// list holds one object per channel, each with its "id", the rest being
// the family's configuration. The ids are checked here, every problem
// listed: a malformed id, one used twice, more than max channels.
func channelConfigs(m schema.Method, raw json.RawMessage, max int) (ids []string, confs []json.RawMessage, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return []string{channel.Default}, []json.RawMessage{raw}, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, nil, fmt.Errorf("provider %s: a list of channels must hold JSON objects: %w", m, err)
	}
	var errs []error
	if len(list) == 0 {
		errs = append(errs, fmt.Errorf("provider %s: the list of channels is empty", m))
	}
	if len(list) > max {
		errs = append(errs, fmt.Errorf("provider %s: %d channels, more than channels-max %d", m, len(list), max))
	}
	seen := map[string]bool{}
	for i, obj := range list {
		var id string
		if err := json.Unmarshal(obj["id"], &id); err != nil || obj["id"] == nil {
			errs = append(errs, fmt.Errorf("provider %s: channel %d has no \"id\" string", m, i+1))
			continue
		}
		if err := channel.CheckID(id); err != nil {
			errs = append(errs, fmt.Errorf("provider %s: %w", m, err))
			continue
		}
		if seen[id] {
			errs = append(errs, fmt.Errorf("provider %s: two channels with id %q", m, id))
			continue
		}
		seen[id] = true
		delete(obj, "id")
		conf, err := json.Marshal(obj)
		if err != nil {
			return nil, nil, fmt.Errorf("provider %s channel %s: %w", m, id, err)
		}
		ids, confs = append(ids, id), append(confs, conf)
	}
	return ids, confs, errors.Join(errs...)
}

// callerName is what a channel's calls are counted and logged under: the
// method (with "_sandbox" for the simulators) for the default channel, as
// before channels, so its dashboards keep their series; "<that>.<id>" for
// the others.
func callerName(m schema.Method, sandbox bool, id string) string {
	name := string(m)
	if sandbox {
		name += "_sandbox"
	}
	if id == "" || id == channel.Default {
		return name
	}
	return name + "." + id
}
