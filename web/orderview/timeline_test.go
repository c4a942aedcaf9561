package orderview

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestTimelineInitAttempts: a channel's failed initialisation is on the
// timeline with the channel and why for the operator; the merchant's
// version keeps the neutral sentence only.
func TestTimelineInitAttempts(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	o := &schema.Order{ID: "P1", Amount: 100, Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusReady,
		Channel: "alt", CreatedAt: at, ProviderRef: "ref-1"}
	notes := []schema.NotificationRecord{{At: at.Add(time.Second), Provider: "wallet_a", Channel: "acct-7f3a",
		Mode: schema.ModeInit, OrderID: "P1", Verdict: schema.VerdictInitFailed, Detail: "http_5xx"}}
	find := func(tl []Event) *Event {
		for i := range tl {
			if tl[i].Kind == "tl_init_failed" {
				return &tl[i]
			}
		}
		t.Fatalf("no init attempt on %+v", tl)
		return nil
	}
	tl := timeline(o, notes, nil, nil)
	if ev := find(tl); ev.Detail != "acct-7f3a: http_5xx" || ev.Tone != "bad" {
		t.Errorf("operator's event = %+v", ev)
	}
	for _, ev := range Merchant(tl) {
		if strings.Contains(ev.Detail, "acct-7f3a") {
			t.Errorf("merchant's timeline names the channel: %+v", ev)
		}
	}
	if ev := find(tl); ev.Detail != "" {
		t.Errorf("merchant's event = %+v", ev)
	}
}
