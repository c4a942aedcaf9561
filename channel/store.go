package channel

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

//go:embed set.lua
var setLua string

// setScript changes one field of the routing data and appends its entry: a
// change without its entry, or an entry without its change, cannot be
// left behind.
var setScript = audit.Script(setLua)

// auditStream is the {merchants} slot's audit stream (schema.AuditStreams).
var auditStream = schema.AuditKey("{merchants}")

// Fields of schema.ChannelsKey.
func settingsField(r Ref) string { return "c:" + r.String() }

func modeField(sandbox bool, m schema.Method) string { return "mode:" + methodKey(sandbox, m) }

func pinField(appid string, sandbox bool, m schema.Method) string {
	return "pin:" + appid + ":" + methodKey(sandbox, m)
}

const keywordsField = "kw"

// Store writes the routing data in Redis, each change with its audit
// entry; Directory reads it.
type Store struct{ rdb redis.Cmdable }

// NewStore wraps rdb.
func NewStore(rdb redis.Cmdable) *Store { return &Store{rdb: rdb} }

// Set makes s channel r's routing data.
func (st *Store) Set(ctx context.Context, r Ref, s Settings, e audit.Entry) error {
	if err := s.Validate(); err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "channel %s: %s", r, err.Error())
	}
	v, err := encodeSettings(s)
	if err != nil {
		return err
	}
	return st.run(ctx, schema.ChannelsKey, settingsField(r), v, "*", e)
}

// Settings is channel r's routing data as stored now (Defaults when none
// is): for a reader that must not wait for a Directory's next poll, such
// as a sandbox simulator charging the channel's cost.
func (st *Store) Settings(ctx context.Context, r Ref) (Settings, error) {
	v, err := st.rdb.HGet(ctx, schema.ChannelsKey, settingsField(r)).Result()
	if errors.Is(err, redis.Nil) {
		return Defaults(), nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("read channel %s: %w", r, err)
	}
	return decodeSettings(v)
}

// SetMode sets how a method's channels are ranked.
func (st *Store) SetMode(ctx context.Context, sandbox bool, m schema.Method, mode Mode, e audit.Entry) error {
	if !mode.Valid() {
		return platform.Errorf(platform.KindInvalidParameter, "routing mode %q: one of %s, %s, %s", mode, ModePriority, ModeWeighted, ModeRoundRobin)
	}
	return st.run(ctx, schema.ChannelsKey, modeField(sandbox, m), string(mode), "*", e)
}

// SetPin restricts merchant appid's orders of method m to the channels ids
// (none: the pin is removed).
func (st *Store) SetPin(ctx context.Context, appid string, sandbox bool, m schema.Method, ids []string, e audit.Entry) error {
	for _, id := range ids {
		if err := CheckID(id); err != nil {
			return platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
		}
	}
	err := st.run(ctx, schema.ChannelsKey, pinField(appid, sandbox, m), strings.Join(ids, ","), "*", e)
	if len(ids) == 0 && platform.KindOf(err) == platform.KindNotFound {
		return nil
	}
	return err
}

// SetKeywords replaces the operator's keyword list: a provider's refusal
// whose message holds one opens the channel's breaker at once.
func (st *Store) SetKeywords(ctx context.Context, kw []string, e audit.Entry) error {
	if err := CheckKeywords(kw); err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "%s", err.Error())
	}
	err := st.run(ctx, schema.ChannelsKey, keywordsField, strings.Join(kw, "\n"), "*", e)
	if len(kw) == 0 && platform.KindOf(err) == platform.KindNotFound {
		return nil
	}
	return err
}

// SetBreaker moves r's breaker from prev (as read; the zero Breaker when
// none is stored) to b. It answers false, with nothing written or logged,
// when another process moved it first.
func (st *Store) SetBreaker(ctx context.Context, r Ref, prev, b Breaker, e audit.Entry) (bool, error) {
	want := ""
	if prev != (Breaker{}) {
		v, err := encodeBreaker(prev)
		if err != nil {
			return false, err
		}
		want = v
	}
	v, err := encodeBreaker(b)
	if err != nil {
		return false, err
	}
	err = st.run(ctx, schema.ChannelBreakersKey, r.String(), v, want, e)
	if platform.KindOf(err) == platform.KindConflict {
		return false, nil
	}
	return err == nil, err
}

func (st *Store) run(ctx context.Context, key, field, value, want string, e audit.Entry) error {
	args, err := audit.ScriptArgs([]any{field, value, want}, e)
	if err != nil {
		return err
	}
	res, err := setScript.Run(ctx, st.rdb, []string{key, schema.ChannelsVersionKey, auditStream}, args...).Text()
	if err != nil {
		return fmt.Errorf("change channel routing %s: %w", field, err)
	}
	switch res {
	case "stale":
		return platform.Errorf(platform.KindConflict, "channel routing %s changed meanwhile", field)
	case "none":
		return platform.Errorf(platform.KindNotFound, "nothing to clear at %s", field)
	}
	return nil
}
