package fees

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

//go:embed set.lua
var setLua string

// setScript changes a schedule and appends its entry: a change without
// its entry, or an entry without its change, cannot be left behind.
var setScript = audit.Script(setLua)

// auditStream is the {merchants} slot's audit stream, which the audit
// projector reads (schema.AuditStreams).
var auditStream = schema.AuditKey("{merchants}")

// Schedule is one stored schedule and whose it is.
type Schedule struct {
	Target
	Fee schema.FeeSchedule
}

// Store writes and reads the schedules in Redis.
type Store struct{ rdb redis.Cmdable }

// NewStore wraps rdb.
func NewStore(rdb redis.Cmdable) *Store { return &Store{rdb: rdb} }

// Set makes f t's schedule from now on, e appended to the audit log in the
// same step. A merchant's override of zero is kept (the merchant pays
// nothing where a default would charge); it is stored spelled out, since a
// zero schedule's String is empty.
func (s *Store) Set(ctx context.Context, t Target, f schema.FeeSchedule, e audit.Entry) error {
	if err := f.Validate(); err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	keys := []string{schema.FeesKey, schema.FeesVersionKey, auditStream}
	if t.AppID != "" {
		keys = append(keys, schema.MerchantKey(t.AppID))
	}
	return s.run(ctx, keys, t, encode(f), e)
}

// Clear removes t's schedule, e appended in the same step: a merchant
// falls back to the default, a default to none. Nothing to clear is a
// KindNotFound error, with nothing logged.
func (s *Store) Clear(ctx context.Context, t Target, e audit.Entry) error {
	return s.run(ctx, []string{schema.FeesKey, schema.FeesVersionKey, auditStream}, t, "", e)
}

func (s *Store) run(ctx context.Context, keys []string, t Target, value string, e audit.Entry) error {
	args, err := audit.ScriptArgs([]any{t.Field(), value}, e)
	if err != nil {
		return err
	}
	res, err := setScript.Run(ctx, s.rdb, keys, args...).Text()
	if err != nil {
		return fmt.Errorf("change fee schedule %s: %w", t.Field(), err)
	}
	switch res {
	case "no_merchant":
		return platform.Errorf(platform.KindNotFound, "no merchant %s", t.AppID)
	case "none":
		return platform.Errorf(platform.KindNotFound, "no fee schedule for %s to clear", describeTarget(t))
	}
	return nil
}

// List reads every schedule: the defaults first, then the merchants'
// overrides by appid, each by method (the method table's order) and
// currency. A field that does not parse is an error: the operator must
// see it rather than a list that hides it.
func (s *Store) List(ctx context.Context) ([]Schedule, error) {
	h, err := s.rdb.HGetAll(ctx, schema.FeesKey).Result()
	if err != nil {
		return nil, fmt.Errorf("read fee schedules: %w", err)
	}
	return decodeAll(h)
}

func decodeAll(h map[string]string) ([]Schedule, error) {
	out := make([]Schedule, 0, len(h))
	for k, v := range h {
		sc, err := decode(k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	order := map[schema.Method]int{}
	for i, m := range schema.AllMethods() {
		order[m] = i
	}
	slices.SortFunc(out, func(a, b Schedule) int {
		return cmp.Or(cmp.Compare(len(a.AppID), len(b.AppID)), strings.Compare(a.AppID, b.AppID),
			cmp.Compare(order[a.Method], order[b.Method]), strings.Compare(a.Currency, b.Currency))
	})
	return out, nil
}

func decode(field, value string) (Schedule, error) {
	parts := strings.Split(field, ":")
	if len(parts) != 3 {
		return Schedule{}, fmt.Errorf("fee schedule field %q: want appid:method:currency", field)
	}
	f, err := schema.ParseFeeSchedule(value)
	if err != nil {
		return Schedule{}, fmt.Errorf("fee schedule %s: %w", field, err)
	}
	appid := parts[0]
	if appid == schema.FeeDefault {
		appid = ""
	}
	return Schedule{Target: Target{AppID: appid, Method: schema.Method(parts[1]), Currency: parts[2]}, Fee: f}, nil
}

// encode is f as stored: String's form, a zero schedule spelled out.
func encode(f schema.FeeSchedule) string {
	if f.Zero() {
		return "0:0:0:0"
	}
	return f.String()
}

func describeTarget(t Target) string {
	who := "the default"
	if t.AppID != "" {
		who = "merchant " + t.AppID
	}
	return who + " of " + string(t.Method) + " in " + t.Currency
}
