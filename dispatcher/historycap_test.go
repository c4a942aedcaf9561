package dispatcher

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestHistoryKeepsTheNewest: a merchant's index of every delivery never
// holds more than HistoryCap, whatever its volume.
func TestHistoryKeepsTheNewest(t *testing.T) {
	e := newScriptEnv(t, time.Second)
	e.s.cfg.HistoryCap = 2
	var ids []string
	for range 3 {
		ids = append(ids, e.schedule(hostA))
	}
	n, err := e.rdb.ZCard(context.Background(), schema.WebhookMerchantAllKey(scriptShard, e.acct.AppID)).Result()
	if err != nil || n != 2 {
		t.Fatalf("history holds %d deliveries (%v), want the cap, 2, of %v", n, err, ids)
	}
}
