package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/schema"
)

// settingsFlags are `channel set`'s flags as typed: only those given
// change anything.
type settingsFlags struct {
	weight, priority, dailyCount      int64
	min, max, dailyAmount, tz, active string
	merchants, group, cost            string
	all                               bool
}

func (f *settingsFlags) bind(fs *flag.FlagSet) {
	fs.Int64Var(&f.weight, "weight", 0, "share of traffic in weighted mode, 1 to 1000")
	fs.Int64Var(&f.priority, "priority", 0, "rank in priority mode, lower first")
	fs.StringVar(&f.min, "min", "", "least charge per order, e.g. 10.00 (0: none)")
	fs.StringVar(&f.max, "max", "", "most charge per order (0: none)")
	fs.StringVar(&f.dailyAmount, "daily-amount", "", "daily amount cap in the charged currency (0: none)")
	fs.Int64Var(&f.dailyCount, "daily-count", 0, "daily count cap (0: none)")
	fs.StringVar(&f.tz, "tz", "", "IANA time zone of the caps' day and the active hours (\"\": UTC)")
	fs.StringVar(&f.active, "active", "", "active hours HH:MM-HH:MM in --tz, may pass midnight (\"\": all day)")
	fs.StringVar(&f.merchants, "merchants", "", "serve only these appids, comma-separated")
	fs.StringVar(&f.group, "group", "", "serve only the merchants of this group")
	fs.BoolVar(&f.all, "all", false, "serve every merchant (clears --merchants and --group)")
	fs.StringVar(&f.cost, "cost", "", "what the provider charges: BPS:FIXED, e.g. 120:0.30 (0: none)")
}

// edit is the change the given flags make, checked before anything
// connects.
func (f *settingsFlags) edit(fs *flag.FlagSet) (func(*channel.Settings) error, error) {
	var steps []func(*channel.Settings)
	var errs []error
	set := func(name string, step func(*channel.Settings)) {
		if given(fs, name) {
			steps = append(steps, step)
		}
	}
	amount := func(name, v string, into func(*channel.Settings, schema.Amount)) {
		if !given(fs, name) {
			return
		}
		a, err := operator.ParseOptionalAmount(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", name, err))
			return
		}
		steps = append(steps, func(s *channel.Settings) { into(s, a) })
	}
	set("weight", func(s *channel.Settings) { s.Weight = int(f.weight) })
	set("priority", func(s *channel.Settings) { s.Priority = int(f.priority) })
	amount("min", f.min, func(s *channel.Settings, a schema.Amount) { s.MinAmount = a })
	amount("max", f.max, func(s *channel.Settings, a schema.Amount) { s.MaxAmount = a })
	amount("daily-amount", f.dailyAmount, func(s *channel.Settings, a schema.Amount) { s.DailyAmount = a })
	set("daily-count", func(s *channel.Settings) { s.DailyCount = f.dailyCount })
	set("tz", func(s *channel.Settings) { s.TimeZone = f.tz })
	set("active", func(s *channel.Settings) { s.Active = f.active })
	if n := countGiven(fs, "merchants", "group", "all"); n > 1 {
		errs = append(errs, errors.New("--merchants, --group and --all: give one"))
	}
	set("merchants", func(s *channel.Settings) { s.Merchants, s.Group = splitIDs(f.merchants), "" })
	set("group", func(s *channel.Settings) { s.Group, s.Merchants = f.group, nil })
	if f.all {
		steps = append(steps, func(s *channel.Settings) { s.Group, s.Merchants = "", nil })
	}
	if given(fs, "cost") {
		c, err := operator.ParseCost(f.cost)
		if err != nil {
			errs = append(errs, fmt.Errorf("--cost: %w", err))
		}
		steps = append(steps, func(s *channel.Settings) { s.Cost = c })
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(steps) == 0 {
		return nil, errors.New("set: give at least one flag to change")
	}
	return func(s *channel.Settings) error {
		for _, step := range steps {
			step(s)
		}
		return nil
	}, nil
}

func countGiven(fs *flag.FlagSet, names ...string) int {
	n := 0
	for _, name := range names {
		if given(fs, name) {
			n++
		}
	}
	return n
}

func splitIDs(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
