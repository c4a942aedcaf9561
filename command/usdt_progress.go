package command

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

//go:embed scripts/usdt_progress.lua
var usdtProgressLua string

var usdtProgressScript = redis.NewScript(usdtProgressLua)

// Progress records where the automatic review of hash on order id stands,
// so that the payer, the merchant and the administrator can say so (a hash
// that matches nothing yet is "not found, checked again at ..." rather than
// a silent queue). Only while the order is under automatic review for hash:
// otherwise a conflict, as for any outcome that comes too late.
func (r *USDTReview) Progress(ctx context.Context, id, hash string, p schema.USDTProgress) error {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return orderNotFound(id)
	}
	ms := func(t time.Time) string {
		if t.IsZero() {
			return "0"
		}
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	code, err := usdtProgressScript.Run(ctx, r.store.rdb, []string{schema.OrderKey(shard, id)}, schema.NextUSDTReview, hash,
		p.Step, ms(p.NextCheck), ms(p.Until), p.Confirmations, p.Required).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("record usdt review progress of %s: %w", id, err)
	case code == -1:
		return orderNotFound(id)
	case code == 0:
		return platform.Errorf(platform.KindConflict, "order %s is not under review for transaction %s", id, hash)
	}
	return nil
}
