package operator

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/handle.lua
	handleLua    string
	handleScript = audit.Script(handleLua)
)

// note is an operator's note as an exception takes it: required, and the
// shared free-text rule (audit.Text: UTF-8, no control characters, at most
// audit.MaxText characters).
func note(v, why string) (string, error) {
	v, err := audit.Text("note", v, audit.MaxText)
	if err == nil && v == "" {
		err = invalid(fmt.Sprintf("a note of 1 to %d characters is required: %s", audit.MaxText, why))
	}
	return v, err
}

// find is the open exception kind/id, or a not-found error: an operator
// acts on what the queue shows, not on made-up ids.
func (x *Exceptions) find(ctx context.Context, actor access.Actor, kind, id string) (Exception, error) {
	all, err := x.List(ctx, actor, ExceptionFilter{Kind: kind, Handled: true})
	if err != nil {
		return Exception{}, err
	}
	for _, e := range all {
		if e.ID == id {
			return e, nil
		}
	}
	return Exception{}, platform.Errorf(platform.KindNotFound, "no %s exception %s", kind, id)
}

// Handle marks an exception handled with a note (support and admin may):
// it leaves the queue until it happens again.
func (x *Exceptions) Handle(ctx context.Context, actor access.Actor, kind, id, text string) (Exception, error) {
	if err := allow(actor, access.PermExceptionsHandle); err != nil {
		return Exception{}, err
	}
	n, err := note(text, "say what was done")
	if err != nil {
		return Exception{}, err
	}
	e, err := x.find(ctx, actor, kind, id)
	if err != nil {
		return Exception{}, err
	}
	h := Handled{At: x.now().UTC(), By: By(actor), Note: n}
	return x.mark(ctx, actor, e, h, "exception.handle", map[string]string{"kind": e.Kind, "note": n, "handled": e.ID})
}

// mark keeps h on e and appends actor's action with details d, in one
// script: no mark without its entry.
func (x *Exceptions) mark(ctx context.Context, actor access.Actor, e Exception, h Handled, action string, d map[string]string) (Exception, error) {
	raw, _ := json.Marshal(h) // plain fields always marshal
	target := "order:" + e.OrderID
	if e.OrderID == "" {
		target = "notification:" + e.ID
	}
	args, err := audit.ScriptArgs([]any{string(raw), x.cfg.KeepHandled.Milliseconds()}, entry(h.At, actor, action, target, e.AppID, d))
	if err != nil {
		return Exception{}, err
	}
	keys := []string{handledKey(e), schema.AuditKey(markTag(e))}
	if err := handleScript.Run(ctx, x.rdb, keys, args...).Err(); err != nil {
		return Exception{}, fmt.Errorf("mark exception handled: %w", err)
	}
	e.Handled = &h
	return e, nil
}

// Resend queues one more attempt of a dead webhook (support and admin may).
func (x *Exceptions) Resend(ctx context.Context, actor access.Actor, id string) error {
	if err := allow(actor, access.PermOpWebhooksResend); err != nil {
		return err
	}
	e, err := x.find(ctx, actor, schema.ExceptionWebhookDead, id)
	if err != nil {
		return err
	}
	return x.webhooks.Resend(ctx, dispatcher.ResendAsk{PaymentID: e.OrderID, RefundID: e.RefundID, By: &actor})
}
