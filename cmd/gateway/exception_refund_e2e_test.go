package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// TestExceptionRefundEndToEnd: through the binary and the sandbox's own
// simulators, a wallet_a and a wallet_b charge of 100.00 CNY of an order
// the merchant cancelled is queued as a mismatch (paidWithMismatch); the
// order stays cancelled. `gateway
// exceptions refund` with the provider out of reach fails and leaves the
// exception open with the attempt shown; asked again it refunds exactly
// what the provider took at the simulator, writes the provider's refund
// reference on the exception, the order's story and the audit log; asked
// a third time it calls nothing and the simulator still holds one refund.
func TestExceptionRefundEndToEnd(t *testing.T) {
	e := newE2ERedis(t)
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve("GATEWAY_ROLES=command")
	for _, tc := range []struct{ method, currency, simKey, refField string }{
		{"wallet_a", "CNY", "sim:wallet_a:trade:", "trade_no"},
		{"wallet_b", "CNY", "sim:wallet_b:tx:", "transaction_id"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			id := paidWithMismatch(t, e, s, rdb, shop, tc.method, tc.currency, tc.simKey, tc.refField)
			if msg := e.refusedEnv([]string{"GATEWAY_PUBLIC_URL=http://127.0.0.1:1"}, "exceptions", "refund", id, "--by", "dora"); !strings.Contains(msg, "could not be reached") {
				t.Fatalf("unreachable: %s", msg)
			}
			var all []struct {
				ID            string
				Actions       []string
				RefundAttempt *struct{ By, RefundID string }
			}
			e.cli(&all, "exceptions", "list", "--kind", "mismatch", "--json")
			open := slices.DeleteFunc(all, func(x struct {
				ID            string
				Actions       []string
				RefundAttempt *struct{ By, RefundID string }
			}) bool {
				return x.ID != id
			})
			if len(open) != 1 || open[0].RefundAttempt == nil || open[0].RefundAttempt.By != "cli:dora" || !slices.Contains(open[0].Actions, "refund") {
				t.Fatalf("after the unanswered refund: %+v", all)
			}
			var done struct {
				Handled struct{ RefundID, ProviderRefund, Note string }
			}
			for range 2 {
				e.cliEnv(&done, []string{"GATEWAY_PUBLIC_URL=" + s.base}, "exceptions", "refund", id, "--by", "dora", "--json")
				if done.Handled.ProviderRefund == "" || done.Handled.RefundID != open[0].RefundAttempt.RefundID ||
					!strings.Contains(done.Handled.Note, "refunded 100.00 CNY through "+tc.method) {
					t.Fatalf("refund: %+v", done)
				}
			}
			var sim struct {
				Refunds map[string]json.RawMessage `json:"refunds"`
			}
			raw, err := rdb.Get(context.Background(), schema.SimKeyPrefix+tc.simKey+id).Bytes()
			if !strings.Contains(string(raw), `"state":"SUCCESS"`) && !strings.Contains(string(raw), `"status":"TRADE_SUCCESS"`) {
				t.Fatalf("the simulator's charge is not paid: %s", raw)
			}
			if err != nil || json.Unmarshal(raw, &sim) != nil || len(sim.Refunds) != 1 || sim.Refunds[done.Handled.RefundID] == nil {
				t.Fatalf("the simulator's refunds: %s %v", raw, err)
			}
			var story struct {
				Notifications []struct{ Verdict, Ref, Paid string }
			}
			e.cli(&story, "order", "show", id, "--json")
			if n := story.Notifications[len(story.Notifications)-1]; n.Verdict != "refunded" || n.Ref != done.Handled.ProviderRefund || n.Paid != "100.00 CNY" {
				t.Fatalf("the order's story: %+v", story.Notifications)
			}
			var after struct {
				Order struct{ Status schema.Status }
			}
			e.cli(&after, "order", "show", id, "--json")
			if after.Order.Status != schema.StatusCancelled {
				t.Fatalf("the order is %v after the refund of a charge it never accepted, want cancelled", after.Order.Status)
			}
			shard, _ := schema.ParseOrderID(id)
			rows, err := audit.Read(context.Background(), rdb, schema.AuditKey(shard.Tag()), 10)
			var acts []string
			for _, r := range rows {
				if r.Target == "order:"+id {
					acts = append(acts, r.Action+"/"+r.ActorID+"/"+r.Details["provider_refund"])
				}
			}
			if err != nil || strings.Join(acts, ",") != "exception.refund_unanswered/dora/,exception.refund/dora/"+done.Handled.ProviderRefund {
				t.Fatalf("audit: %v %v", acts, err)
			}
		})
	}
}

// paidWithMismatch creates a sandbox order of method, which the merchant
// cancels; the payer then pays at the provider's page anyway, and the
// provider's notification is lost (its address in the simulator's trade is
// made unreachable first), so the simulator holds a paid charge of an
// order we never marked paid. The mismatch's record names that charge, as
// the notification log would keep it: the simulators only ever pay in
// full, so the record is the fixture; the charge and the refund are the
// simulator's.
func paidWithMismatch(t *testing.T, e *e2e, s *server, rdb *redis.Client, shop account, method, currency, simKey, refField string) string {
	t.Helper()
	ctx := context.Background()
	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"], p["amount"] = method, currency, "100.00"
	r := s.create(t, p, shop.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r.Status != 200 || id == "" {
		t.Fatalf("create: %+v", r)
	}
	var show struct {
		Order struct{ QRPayload, ProviderURL string }
	}
	e.cli(&show, "order", "show", id, "--json")
	if c := s.signedPost(t, "/api/order/cancel", schema.Params{"appid": shop.AppID, "action": "cancel", "paymentId": id}, shop.APIKey, ""); c.Status != 200 {
		t.Fatalf("cancel: %+v", c)
	}
	key := schema.SimKeyPrefix + simKey + id
	sim := map[string]any{}
	if raw, err := rdb.Get(ctx, key).Bytes(); err != nil || json.Unmarshal(raw, &sim) != nil {
		t.Fatalf("the simulator's charge: %v", err)
	}
	sim["notify_url"] = "http://127.0.0.1:1/lost"
	raw, _ := json.Marshal(sim)
	rdb.Set(ctx, key, raw, redis.KeepTTL)
	payOnPage(t, cmpOr(show.Order.ProviderURL, show.Order.QRPayload), "pay")
	if raw, err := rdb.Get(ctx, key).Bytes(); err != nil || json.Unmarshal(raw, &sim) != nil || sim[refField] == "" {
		t.Fatalf("the simulator's paid charge: %s %v", raw, err)
	}
	now := time.Now()
	rec, _ := json.Marshal(schema.NotificationRecord{At: now, Provider: method, Mode: "sandbox", OrderID: id, Ref: sim[refField].(string),
		Outcome: "paid", Paid: "100.00 " + currency, Verdict: schema.VerdictIgnored, Detail: "paid after the order was cancelled"})
	shard, _ := schema.ParseOrderID(id)
	rdb.LPush(ctx, schema.NotificationsKey(shard, id), rec)
	rdb.Expire(ctx, schema.NotificationsKey(shard, id), time.Hour)
	rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(now.UnixMilli()), Member: id})
	return id
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cliEnv is cli with more environment.
func (e *e2e) cliEnv(v any, env []string, args ...string) {
	e.t.Helper()
	out, stderr, err := e.exec(env, args...)
	if err != nil {
		e.t.Fatalf("gateway %v: %v\n%s", args, err, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		e.t.Fatalf("gateway %v printed %s: %v", args, out, err)
	}
}

// refusedEnv is refused with more environment: the command's stderr.
func (e *e2e) refusedEnv(env []string, args ...string) string {
	e.t.Helper()
	out, stderr, err := e.exec(env, args...)
	if err == nil {
		e.t.Fatalf("gateway %v succeeded: %s", args, out)
	}
	return stderr
}

func (e *e2e) exec(env []string, args ...string) ([]byte, string, error) {
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, stderr.String(), err
}
