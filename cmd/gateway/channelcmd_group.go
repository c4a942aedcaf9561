package main

import (
	"context"
	"fmt"
	"io"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
)

// merchantGroupCmd is `gateway merchant group APPID GROUP|-`: the merchant
// group channels may serve (channel set --group), audited as the CLI's.
func merchantGroupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := subFlags("merchant", "group", "APPID GROUP|- [--by NAME] [--json]", args, stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("merchant group: want APPID GROUP|-\n%s", merchantUsage)
	}
	group := pos[1]
	if group == "-" {
		group = ""
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil {
		return fmt.Errorf("merchant group: %w", err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	uc := operator.NewChannels(rdb, nil, merchant.NewStore(rdb))
	if err := uc.SetGroup(ctx, actor, pos[0], group); err != nil {
		return fmt.Errorf("merchant group: %w", err)
	}
	return done(output{w: stdout, json: *asJSON}, nil)
}
