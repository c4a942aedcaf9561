package orderview

import (
	"strconv"
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

// TestTimelineCausalOrder: the timeline reads created → method → provider →
// notification → paid → refund, each webhook attempt after the event it
// carries, whatever the clocks' precision (an attempt is kept to the
// second, so it ties with or precedes what caused it) and in whatever order
// the records come.
func TestTimelineCausalOrder(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) time.Time { return at.Add(d) }
	wire := func(d time.Duration) string { return schema.WireTime(at.Add(d)) } // truncated to the second
	paidOrder := func() *schema.Order {
		return &schema.Order{ID: "P1", Amount: 2550, Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusPaid,
			CreatedAt: ms(400 * time.Millisecond), CompletedAt: ms(700 * time.Millisecond), ProviderRef: "ref-1"}
	}
	refund := func(id string, created time.Duration) schema.Refund {
		return schema.Refund{ID: id, Amount: 700, Currency: "CNY", Status: "succeeded", CreatedMs: ms(created).UnixMilli()}
	}
	note := func(d time.Duration) schema.NotificationRecord {
		return schema.NotificationRecord{At: ms(d), Provider: "wallet_a", OrderID: "P1", Verdict: schema.VerdictApplied}
	}
	try := func(n int, d time.Duration) schema.WebhookAttempt {
		return schema.WebhookAttempt{At: wire(d), Attempt: n, Status: 200, Success: true}
	}
	cases := []struct {
		name  string
		o     *schema.Order
		notes []schema.NotificationRecord
		rfs   []schema.Refund
		hooks []hookLog
		want  []string
	}{
		{name: "same second: the attempt's truncated time ties with creation",
			o: paidOrder(), notes: []schema.NotificationRecord{note(600 * time.Millisecond)},
			hooks: []hookLog{{event: "paid", id: "P1", attempts: []schema.WebhookAttempt{try(1, 900*time.Millisecond)}}},
			want:  []string{"tl_created", "tl_method", "tl_provider", "tl_notification", "tl_paid", "tl_webhook_paid"}},
		{name: "paid stamped before the notification that paid it",
			o: paidOrder(), notes: []schema.NotificationRecord{note(800 * time.Millisecond)},
			want: []string{"tl_created", "tl_method", "tl_provider", "tl_notification", "tl_paid"}},
		{name: "attempts out of order, a refund's webhook in the refund's second",
			o: paidOrder(), rfs: []schema.Refund{refund("R1", 5*time.Second+500*time.Millisecond)},
			hooks: []hookLog{
				{event: "refund", id: "R1", attempts: []schema.WebhookAttempt{try(2, 7*time.Second), try(1, 5*time.Second+600*time.Millisecond)}},
				{event: "paid", id: "P1", attempts: []schema.WebhookAttempt{try(2, 2*time.Second), try(1, 900*time.Millisecond)}},
			},
			want: []string{"tl_created", "tl_method", "tl_provider", "tl_paid", "tl_webhook_paid#1", "tl_webhook_paid#2",
				"tl_refund", "tl_webhook_refund#1", "tl_webhook_refund#2"}},
		{name: "a refund recorded before the order's completion stamp",
			o: paidOrder(), rfs: []schema.Refund{refund("R1", 100*time.Millisecond)},
			want: []string{"tl_created", "tl_method", "tl_provider", "tl_paid", "tl_refund"}},
		{name: "notifications newest first, two in one moment; a failed channel before the provider",
			o: paidOrder(), notes: []schema.NotificationRecord{
				{At: ms(time.Second), Provider: "wallet_a", Verdict: schema.VerdictNoChange},
				{At: ms(time.Second), Provider: "wallet_a", Verdict: schema.VerdictApplied},
				{At: ms(500 * time.Millisecond), Provider: "wallet_a", Mode: schema.ModeInit, Channel: "alt", Verdict: schema.VerdictInitFailed},
			},
			want: []string{"tl_created", "tl_method", "tl_init_failed", "tl_provider", "tl_notification:applied", "tl_notification:no_change", "tl_paid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ev := range timeline(tc.o, tc.notes, tc.rfs, tc.hooks) {
				got = append(got, label(ev, tc.want))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("timeline\n got  %v\n want %v", got, tc.want)
			}
		})
	}
}

// label names ev as want does: the kind, with the attempt number or the
// verdict when want tells lines of one kind apart so.
func label(ev Event, want []string) string {
	for _, w := range want {
		kind, more, ok := strings.Cut(w, "#")
		if ok && kind == ev.Kind && ev.Attempt != nil && strconv.Itoa(ev.Attempt.Attempt) == more {
			return w
		}
		kind, more, ok = strings.Cut(w, ":")
		if ok && kind == ev.Kind && strings.Contains(ev.Detail, ": "+more) {
			return w
		}
	}
	return ev.Kind
}
