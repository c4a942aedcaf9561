package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

var altRef = channel.Ref{Method: schema.MethodWalletA, ID: "alt"}

type twoChannels struct{}

func (twoChannels) Channels(m schema.Method, _ bool) []string {
	if m == schema.MethodWalletA {
		return []string{"alt", "default"}
	}
	return nil
}

func newChannels(rdb redisClient) *Channels {
	return NewChannels(rdb, twoChannels{}, merchant.NewStore(rdb))
}

// TestChannelsListAndEdit: the list holds the configured channels of both
// modes and a stored one not configured (so marked); an edit keeps what
// it does not touch, a breaker by hand needs a reason, today's use and
// success rate come from Redis.
func TestChannelsListAndEdit(t *testing.T) {
	rdb := miniRedis(t)
	ctx := context.Background()
	seed(t, rdb)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	uc := newChannels(rdb).WithClock(func() time.Time { return now })
	stray := channel.Ref{Method: schema.MethodWalletA, ID: "gone"}
	if _, err := uc.Edit(ctx, opAdmin, stray, "channel.set", func(s *channel.Settings) error { s.Weight = 3; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := uc.Edit(ctx, opAdmin, altRef, "channel.set", func(s *channel.Settings) error { s.DailyCount, s.Priority = 10, 2; return nil }); err != nil {
		t.Fatal(err)
	}
	s, err := uc.Edit(ctx, opAdmin, altRef, "channel.disable", func(s *channel.Settings) error { s.Disabled = true; return nil })
	if err != nil || s.DailyCount != 10 || s.Priority != 2 || !s.Disabled {
		t.Fatalf("edit lost a value: %+v %v", s, err)
	}
	if _, err := channel.NewCaps(rdb).Reserve(ctx, channel.Candidate{Ref: altRef, Settings: s}, "o1", 5_00, now); err != nil {
		t.Fatal(err)
	}
	if err := uc.SetBreaker(ctx, opAdmin, altRef, channel.Open, ""); platform.KindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("a breaker without a reason: %v", err)
	}
	v, err := uc.List(ctx, opSupport)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	var alt ChannelView
	for _, m := range v.Methods {
		for _, c := range m.Channels {
			refs = append(refs, c.Ref.String())
			if c.Ref == altRef {
				alt = c
			}
			if c.Ref == stray && c.Configured {
				t.Fatal("a channel without credentials is listed as configured")
			}
		}
	}
	if got := strings.Join(refs, " "); got != "wallet_a.alt wallet_a.default wallet_a.gone sandbox.wallet_a.alt sandbox.wallet_a.default" {
		t.Fatalf("listed %s", got)
	}
	if !alt.Configured || alt.Used.Count != 1 || alt.Used.Amount != 5_00 || alt.Day != "20261128" || alt.Attempts.Rate() != -1 {
		t.Fatalf("alt %+v", alt)
	}
	if _, err := uc.Show(ctx, opAdmin, channel.Ref{Method: schema.MethodWalletB, ID: "nowhere"}); platform.KindOf(err) != platform.KindNotFound {
		t.Fatalf("show of an unknown channel: %v", err)
	}
	rows, err := audit.Read(ctx, rdb, schema.AuditKey("{merchants}"), 100)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, r := range rows {
		if strings.HasPrefix(r.Action, "channel.") {
			actions = append(actions, r.Action)
			if r.ActorEmail != opAdmin.Email || r.Realm != audit.RealmOperator || r.Details["channel"] == "" || r.Details["settings"] == "" {
				t.Fatalf("entry %+v", r)
			}
		}
	}
	if strings.Join(actions, " ") != "channel.set channel.set channel.disable" {
		t.Fatalf("entries %v", actions)
	}
}
