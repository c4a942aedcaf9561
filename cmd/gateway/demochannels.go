package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// demoKeywords gives a fresh demo the simulators' restricted-account
// phrases as the channel keyword list, so a tester who turns one sandbox
// channel restricted (`gateway sandbox fault`) sees the breaker open and
// the next channel take the payment. A list an operator set is kept.
func demoKeywords(ctx context.Context, rdb redis.Cmdable) error {
	cur, err := rdb.HGet(ctx, schema.ChannelsKey, "kw").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read channel keywords: %w", err)
	}
	if cur != "" {
		return nil
	}
	var kw []string
	for _, p := range sandbox.RestrictedPhrases() {
		if !slices.Contains(kw, p) {
			kw = append(kw, p)
		}
	}
	slices.Sort(kw)
	e := audit.Entry{At: time.Now().UTC(), ActorID: "demo", Realm: audit.RealmCLI, Action: "channel.keywords",
		Target: "channels", Source: "cli", Details: map[string]string{"words": strings.Join(kw, "; ")}}
	return channel.NewStore(rdb).SetKeywords(ctx, kw, e)
}
