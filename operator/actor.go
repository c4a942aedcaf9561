package operator

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

// Auditor appends an entry to the audit log (an *audit.Log).
type Auditor interface {
	Append(ctx context.Context, e audit.Entry) (string, error)
}

// allow says whether actor may do p: the CLI may (it holds Redis anyway);
// an operator whose role grants p may; anyone else, a merchant console user
// included, may not.
func allow(actor access.Actor, p access.Permission) error {
	if actor.Realm == audit.RealmCLI || actor.Can(access.RealmOperator, p) {
		return nil
	}
	return &platform.Error{Kind: platform.KindForbidden, Msg: "your role may not do this", Err: access.ErrForbidden}
}

// entry is actor's action on target, as the audit log keeps it.
func entry(now time.Time, actor access.Actor, action, target, appid string, d map[string]string) audit.Entry {
	return audit.Entry{At: now, ActorID: actor.ID, ActorEmail: actor.Email, Realm: actor.Realm, Role: string(actor.Role),
		Action: action, Target: target, AppID: appid, Source: actor.Source, Details: d}
}

// By is how a record outside the audit log (an FX rate's history, a review
// decision) names actor: "cli:NAME" or "op:EMAIL".
func By(actor access.Actor) string {
	if actor.Realm == audit.RealmCLI {
		return "cli:" + actor.ID
	}
	return "op:" + actor.Email
}

// checked is e when it is an entry the log takes (audit.Entry.Check, a
// 400 otherwise). Every change here builds its entry and checks it before
// it acts, so a value the log cannot keep refuses the change instead of
// leaving a change without its entry.
func checked(e audit.Entry) (audit.Entry, error) { return e, e.Check() }

// record appends e, checked before the change it describes, after that
// change; a failure here (Redis down) is the call's failure, so the caller
// reports the change as not confirmed and the operator looks again rather
// than assuming it is logged.
func record(ctx context.Context, log Auditor, e audit.Entry) error {
	_, err := log.Append(ctx, e)
	return err
}

func invalid(msg string) error { return &platform.Error{Kind: platform.KindInvalidParameter, Msg: msg} }
